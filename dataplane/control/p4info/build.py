"""Build a ``p4.config.v1.P4Info`` from the front end's program, as p4c's P4RuntimeSerializer does.

Two passes, like p4c's: first every control-plane name is collected with its kind (and
``@id``), ids are assigned (``ids.SymbolTable``), then each object is written. Only the
blocks the ``main`` package uses count (p4c evaluates the package), and only the tables and
actions p4c's front end keeps (``reach``).
"""
from __future__ import annotations

import dataclasses

from p4.config.v1 import p4info_pb2

from dataplane.control.p4info import externs as X
from dataplane.control.p4info import ids
from dataplane.control.p4info.annotations import add_annotations, add_documentation, split_top_level, unquote, user_id
from dataplane.control.p4info.ids import P4InfoError
from dataplane.control.p4info.packet_io import add_controller_headers, add_value_set, controller_headers
from dataplane.control.p4info.reach import applied_tables, called_actions
from dataplane.control.p4info.tables import ActionScope, add_action, add_table, table_action_refs, table_name
from dataplane.control.p4info.type_info import TypeSpecs
from dataplane.errors import DiagnosticSink
from dataplane.ir import expr as E
from dataplane.ir import program as P
from dataplane.ir import types as T
from dataplane.ir.node import annotation, walk
from dataplane.lang.cp_names import check_action_names

_NO_P4INFO = {"ebpf", "xdp"}


def build_p4info(program: P.Program) -> p4info_pb2.P4Info:
    """The P4Info p4c would generate for ``program`` (v1model, PSA, PNA or uBPF)."""
    arch = program.architecture
    if arch in _NO_P4INFO:
        raise P4InfoError(f"p4c generates no P4Info for the {arch} architecture (its eBPF back end has no "
                          "P4Runtime support); P4Info exists for v1model, psa, pna and ubpf programs")
    if arch not in X.TRAITS:
        arch = "v1model"   # p4c's default for a package it does not know (P4C_DEFAULT_ARCH, --arch)
    _check_action_names(program)
    return _Builder(program, X.TRAITS[arch], arch).build()


def _check_action_names(program: P.Program) -> None:
    """p4c refuses two actions of one control-plane name only when it writes P4Info."""
    sink = DiagnosticSink()
    check_action_names(program, sink)
    if sink.errors:
        first = sink.errors[0]
        raise P4InfoError(first.message, first.span)


class _Builder:
    def __init__(self, program: P.Program, traits: X.ArchTraits, arch: str):
        self.program = program
        self.traits = traits
        self.arch = arch
        self.info = p4info_pb2.P4Info()
        self.symbols = ids.SymbolTable()
        self.specs = TypeSpecs(self.info.type_info, program.type_annotations, program.errors)
        names = [b for _, b in program.package.blocks] if program.package is not None else []
        self.controls = [program.controls[n] for n in dict.fromkeys(names) if n in program.controls]
        self.parsers = [program.parsers[n] for n in dict.fromkeys(names) if n in program.parsers]
        self.instances = self._instances()
        self.touch_type_info = False
        self._auto_digests: dict[int, str] = {}

    # ---- collection -----------------------------------------------------------------------------
    def _instances(self) -> list[X.Instance]:
        out = []
        if self.program.package is None:    # nothing is evaluated without a main package
            return out
        made_by_package = set(self.program.package.arg_externs)
        for inst in self.program.instances:
            out.append(X.Instance(P.control_plane_name("", inst.name, inst.annotations), inst, "",
                                  inst.name not in made_by_package))
        for block in self.parsers + self.controls:
            implicit = self._implicit(block) if isinstance(block, P.Control) else {}
            for inst in block.instances:
                if inst.name in implicit:
                    if not implicit[inst.name]:
                        continue    # its table is never applied: p4c removes both
                    named = annotation(inst.annotations, "name")
                    if named is None:
                        if X.instance_kind(self.traits, inst.extern) is None:
                            continue
                        raise P4InfoError(f"table property '{inst.name}' is an anonymous {inst.extern} with no @name, "
                                          "which P4Runtime does not support", inst.span)
                    out.append(X.Instance(named.string_value.lstrip("."), inst, block.name, False))
                else:
                    out.append(X.Instance(P.control_plane_name(block.name, inst.name, inst.annotations), inst,
                                          block.name, inst.extern != "value_set"))
        return out

    def _implicit(self, control: P.Control) -> dict[str, bool]:
        """Instances a table property constructs in place (``implementation = action_profile(..)``),
        each with whether its table is kept."""
        out = {}
        by_name = {i.name: i for i in control.instances}
        kept = {t.name for t in self._tables(control)}
        for t in control.tables.values():
            for ref in (t.implementation, t.counters, t.meters):
                inst = by_name.get(ref) if ref else None
                if inst is not None and inst.name == f"{t.name}_{inst.extern}":
                    out[inst.name] = t.name in kept
        return out

    def _table_actions(self, control: P.Control) -> dict[str, P.Action]:
        """The actions of ``control`` that p4c keeps: those its tables list (with an implicit
        ``NoAction``) and those its body calls where the call is reachable. p4c's front end
        inlines an action called from another action, and takes every parameter off one
        that is only called directly (so P4Info shows none)."""
        scope = ActionScope(self.program, control)
        out: dict[str, P.Action] = {}
        for t in self._tables(control):
            for ref in table_action_refs(t):
                name, action = scope.lookup(ref.action)
                out.setdefault(name, action)
        for short in called_actions(control.body):
            name, action = scope.lookup(short)
            if name not in out:
                out[name] = dataclasses.replace(action, params=(), param_annotations=())
        return out

    @staticmethod
    def _tables(control: P.Control) -> list[P.Table]:
        """The tables p4c keeps: those the control applies (in code that can run), also from
        the key of a kept table."""
        applied = applied_tables(control.body)
        todo = list(applied)
        while todo:
            t = control.tables.get(todo.pop())
            for key in t.keys if t is not None else ():
                new = applied_tables(key.expr) - applied
                applied |= new
                todo += new
        return [t for t in control.tables.values() if t.name in applied]

    def _collect(self) -> None:
        s = self.symbols
        for c in self.controls:
            for name, action in self._table_actions(c).items():
                s.add(ids.ACTION, name, user_id(action.annotations, name), action.span)
            for t in self._tables(c):
                name = table_name(c, t)
                s.add(ids.TABLE, name, user_id(t.annotations, name), t.span)
            for name, _ in self._digest_calls(c):
                s.add(ids.DIGEST, name)
        for it in self.instances:
            kind = X.instance_kind(self.traits, it.inst.extern)
            if kind is not None:
                s.add(kind, it.name, user_id(it.inst.annotations, it.name), it.inst.span)
        for p in self.parsers:
            for inst in _value_sets(p):
                name = P.control_plane_name(p.name, inst.name, inst.annotations)
                s.add(ids.VALUE_SET, name, user_id(inst.annotations, name), inst.span)
        for name, anns in controller_headers(self.program):
            s.add(ids.CONTROLLER_HEADER, name, user_id(anns, name))
        s.compute_ids()

    def _digest_calls(self, control: P.Control):
        """v1model's ``digest<T>(receiver, data)`` calls: (control-plane name, type of T)."""
        if self.arch != "v1model":
            return []
        out = []
        for body in self._bodies(control):
            for n in walk(body):
                if isinstance(n, E.Call) and isinstance(n.target, E.PathExpr) and n.target.name == "digest" \
                        and len(n.args) == 2:
                    t = n.args[1].value.type
                    if isinstance(t, T.StructLike):
                        name = self.specs.name(t)
                    else:   # p4c names a digest of an unnamed type digest_0, digest_1, ... per call
                        name = self._auto_digests.setdefault(id(n), f"digest_{len(self._auto_digests)}")
                    out.append((name, t))
        return out

    # ---- emission -------------------------------------------------------------------------------
    def build(self) -> p4info_pb2.P4Info:
        self._collect()
        info, s, specs, traits = self.info, self.symbols, self.specs, self.traits
        by_block: dict[str, dict[str, X.Instance]] = {}
        for it in self.instances:
            by_block.setdefault(it.block, {})[it.inst.name] = it
        profile_tables: dict[str, list[str]] = {}
        for c in self.controls:
            scope = ActionScope(self.program, c)
            for name, action in self._table_actions(c).items():
                add_action(info, s, specs, name, action)
                if any(not p.direction for p in action.params):
                    self.touch_type_info = True
            for t in self._tables(c):
                self.touch_type_info = True
                if annotation(t.annotations, "hidden") is not None:
                    continue
                msg = add_table(info, s, specs, scope, t, traits.timeout_property)
                tname = table_name(c, t)
                props = dict(t.properties)
                impl = t.implementation or _ref(props.get(traits.implementation_property))
                if impl:
                    it = self._find(by_block, c.name, impl)
                    msg.implementation_id = s.id(ids.ACTION_PROFILE, it.name)
                    profile_tables.setdefault(it.name, []).append(tname)
                for ref in (t.counters or _ref(props.get(traits.counters_property)),
                            t.meters or _ref(props.get(traits.meters_property))):
                    if ref:
                        X.add_direct(info, s, traits, self._find(by_block, c.name, ref), tname, msg)
            for name, t in self._digest_calls(c):
                X.add_digest(info, s, name, specs.spec(t))
            if self.arch == "v1model" and self._calls_extern_function(c):
                self.touch_type_info = True
        for it in self.instances:
            if it.declared:
                self.touch_type_info = True
            kind = X.instance_kind(traits, it.inst.extern)
            if kind == ids.COUNTER:
                X.add_counter(info, s, specs, traits, it)
            elif kind == ids.METER:
                X.add_meter(info, s, specs, traits, it)
            elif kind == ids.REGISTER:
                X.add_register(info, s, specs, traits, it)
            elif kind == ids.ACTION_PROFILE:
                X.add_action_profile(info, s, traits, it, profile_tables.get(it.name, []))
            elif kind == ids.DIGEST:
                if not it.inst.type_args:
                    raise P4InfoError(f"digest '{it.name}' has no type argument", it.inst.span)
                X.add_digest(info, s, it.name, specs.spec(it.inst.type_args[0]), it.inst.annotations)
        for p in self.parsers:
            for inst in _value_sets(p):
                add_value_set(info, s, P.control_plane_name(p.name, inst.name, inst.annotations), inst)
        if add_controller_headers(info, s, specs, self.program):
            self.touch_type_info = True
        if self.touch_type_info:
            info.type_info.SetInParent()
        if self.program.package is not None:   # p4c leaves pkg_info out without a main package
            self._pkg_info()
        return info

    def _calls_extern_function(self, control: P.Control) -> bool:
        """Whether the control or one of its actions calls an extern function (p4c's v1model
        handler then looks for digests, touching ``type_info``)."""
        return any(isinstance(n, E.Call) and isinstance(n.target, E.PathExpr) and n.target.ref == "extern_function"
                   for body in self._bodies(control) for n in walk(body))

    def _bodies(self, control: P.Control) -> list:
        """The control's body and those of its kept actions, with the actions they call (which
        p4c inlines into them)."""
        scope = ActionScope(self.program, control)
        bodies = [control.body] + [a.body for a in self._table_actions(control).values()]
        seen: set[str] = set()
        i = 0
        while i < len(bodies):
            for n in walk(bodies[i]):
                if isinstance(n, E.Call) and isinstance(n.target, E.PathExpr) and n.target.ref == "action" \
                        and n.target.name not in seen:
                    seen.add(n.target.name)
                    bodies.append(scope.lookup(n.target.name)[1].body)
            i += 1
        return bodies

    @staticmethod
    def _find(by_block: dict, block: str, name: str) -> X.Instance:
        it = by_block.get(block, {}).get(name) or by_block.get("", {}).get(name)
        if it is None:
            raise P4InfoError(f"control '{block}': no extern instance '{name}'")
        return it

    def _pkg_info(self) -> None:
        pkg = self.info.pkg_info
        pkg.arch = self.arch
        anns = self.program.package.annotations
        info_ann = annotation(anns, "pkginfo")
        if info_ann is not None:
            for part in _kv_pairs(info_ann.body):
                key, value = part
                if key in ("name", "version", "organization", "contact", "url", "arch"):
                    setattr(pkg, key, unquote(value))
        prop = annotation(anns, "platform_property")
        if prop is not None:
            for key, value in _kv_pairs(prop.body):
                if key in ("multicast_group_table_size", "multicast_group_table_total_replicas",
                           "multicast_group_table_max_replicas_per_entry"):
                    setattr(pkg.platform_properties, key, int(value, 0))
        add_annotations(pkg, anns, lambda n: n in ("pkginfo", "platform_property"))
        add_documentation(pkg, anns)


def _value_sets(parser: P.Parser) -> list[P.ExternInstance]:
    """The parser's value sets that a select case uses (p4c removes the others)."""
    used = {n.name for st in parser.states.values() for c in st.cases for k in c.keysets for n in walk(k)
            if isinstance(n, E.PathExpr) and n.ref == "value_set"}
    return [i for i in parser.instances if i.extern == "value_set" and i.name in used]


def _ref(value) -> str | None:
    if isinstance(value, E.PathExpr):
        return value.name
    return None


def _kv_pairs(body: str) -> list[tuple[str, str]]:
    out = []
    for part in split_top_level(body):
        if "=" in part:
            k, v = part.split("=", 1)
            out.append((k.strip(), v.strip()))
    return out
