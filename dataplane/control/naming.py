"""How the control plane names tables, actions and extern instances.

Objects answer to their name in the program (``MyIngress.ipv4_lpm``) and to the name p4c
gives them in BMv2's JSON and P4Info (``@name`` counts; objects of an inlined sub-control
instance are ``MyIngress.c1.t``), and to any unambiguous suffix of either that starts
after a dot (``ipv4_lpm``, ``c1.t``). Used by ``Switch`` and the STF runner.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

from dataplane.control.config_errors import ControlPlaneError
from dataplane.engine.table_runtime import RuntimeTable
from dataplane.ir import program as P
from dataplane.ir.node import annotation
from dataplane.ir.program import control_plane_name


def resolve(name: str, items: Mapping[str, Any], kind: str,
            aliases: Callable[[Any], Iterable[str]] | None = None) -> Any:
    """The item named ``name`` exactly, else the one whose name or alias ends with ``.name``."""
    if name in items:
        return items[name]
    matches = [q for q in items if q.endswith("." + name) or q == name]
    if aliases is not None:
        matches += [q for q, obj in items.items() if q not in matches
                    and any(a == name or a.endswith("." + name) for a in aliases(obj))]
    if len(matches) == 1:
        return items[matches[0]]
    if not matches:
        known = ", ".join(sorted(items)) or "none"
        raise ControlPlaneError(f"unknown {kind} '{name}' (known: {known})", _invalid_name(kind))
    raise ControlPlaneError(f"{kind} name '{name}' is ambiguous: {', '.join(sorted(matches))}", _invalid_name(kind))


def _invalid_name(kind: str) -> str:
    """BMv2's code for a name that names nothing: INVALID_TABLE_NAME, INVALID_ACTION_NAME, ..."""
    return f"INVALID_{kind.upper().replace(' ', '_')}_NAME"


def table_aliases(t: RuntimeTable) -> set[str]:
    """p4c's control-plane name of a table with ``@name`` (``ingress.c1.t`` for one inlined from a
    sub-control), and that name's last part, as BMv2's CLI takes it."""
    if annotation(t.table.annotations, "name") is None:
        return set()
    full = control_plane_name(t.control, t.table.name, t.table.annotations)
    return {full, full.split(".")[-1]}


def table_names(tables: Mapping[str, RuntimeTable]) -> dict[str, RuntimeTable]:
    """Every full name a table answers to: ``Block.table`` and p4c's control-plane name."""
    out: dict[str, RuntimeTable] = {}
    for q, t in tables.items():
        out.setdefault(q, t)
        for alias in table_aliases(t):
            out.setdefault(alias, t)
    return out


def action_names(program: P.Program, table: RuntimeTable) -> dict[str, str]:
    """Every full name of each action ``table`` can run, to the action's name in the program:
    its own, ``Block.action`` and p4c's control-plane name (``ingress.c1.a`` for an action of
    sub-control instance ``c1``, or its ``@name``)."""
    t = table.table
    control = program.controls[table.control]
    out: dict[str, str] = {}
    for ref in t.actions + (t.default_action,):
        n = ref.action
        local = control.actions.get(n)
        decl = local or program.actions[n]
        full = control_plane_name(table.control if local else "", n, decl.annotations)
        alias = annotation(ref.annotations, "name")
        for name in (full, f"{table.control}.{n}", n, alias.string_value if alias else None):
            if name:
                out.setdefault(name, n)
    return out


def find_action(program: P.Program, table: RuntimeTable, name: str) -> tuple[str, P.Action]:
    """(name in the program, Action) of ``name``: a full name (see ``action_names``), else a unique
    ``.``-suffix of one (``MyIngress.fwd`` or ``fwd``; ``MyIngress.c1.a``, ``c1.a`` or ``a``)."""
    names = action_names(program, table)
    allowed = {a.action for a in table.table.actions}
    found = {names[name]} if name in names else {v for k, v in names.items() if k.endswith("." + name)}
    short = found.pop() if len(found) == 1 else None
    if short not in allowed:
        raise ControlPlaneError(f"table '{table.qualified_name}': action '{name}' is not one of its actions "
                                f"({', '.join(sorted(allowed))})", "INVALID_ACTION_NAME")
    return short, program.controls[table.control].actions.get(short) or program.actions[short]


def instance_names(program: P.Program) -> dict[str, str]:
    """``Block.instance`` (a top-level one: ``instance``) of each extern instance with an ``@name``,
    to p4c's control-plane name, which P4Info and BMv2's JSON give it."""
    out = {inst.name: control_plane_name("", inst.name, inst.annotations) for inst in program.instances
           if annotation(inst.annotations, "name") is not None}
    for block in list(program.parsers.values()) + list(program.controls.values()):
        for inst in block.instances:
            if annotation(inst.annotations, "name") is not None:
                out[f"{block.name}.{inst.name}"] = control_plane_name(block.name, inst.name, inst.annotations)
    return out
