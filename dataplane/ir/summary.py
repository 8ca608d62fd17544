"""A readable, one-screen summary of a compiled program (what ``dataplane compile`` prints)."""
from __future__ import annotations

from dataplane.ir import expr as E
from dataplane.ir import program as P


def format_expr(e: E.Expr | None, key_name: bool = False) -> str:
    """Short P4-like text for an expression (keys, keysets, action arguments).

    ``key_name`` gives a table key's control-plane name instead (``hdr.ipv4.dstAddr``,
    ``meta.x[7:0]``): constants in decimal, casts dropped, calls without arguments.
    """
    if key_name:
        if isinstance(e, E.Cast) and e.expr is not None:
            return format_expr(e.expr, True)
        if isinstance(e, E.Constant):
            return str(e.value)
        if isinstance(e, E.Call):
            return f"{format_expr(e.target, True)}()"
    if e is None:
        return "_"
    if isinstance(e, E.Constant):
        return hex(e.value) if e.base == 16 or e.value > 255 else str(e.value)
    if isinstance(e, E.BoolLiteral):
        return "true" if e.value else "false"
    if isinstance(e, E.PathExpr):
        return e.name
    if isinstance(e, E.Member):
        return f"{format_expr(e.expr, key_name)}.{e.member}"
    if isinstance(e, E.Index):
        return f"{format_expr(e.expr, key_name)}[{format_expr(e.index, key_name)}]"
    if isinstance(e, E.Slice):
        return f"{format_expr(e.expr, key_name)}[{format_expr(e.hi, key_name)}:{format_expr(e.lo, key_name)}]"
    if isinstance(e, E.TypeMember):
        return f"{e.type_name}.{e.member}"
    if isinstance(e, E.Mask):
        return f"{format_expr(e.value, key_name)} &&& {format_expr(e.mask, key_name)}"
    if isinstance(e, E.Range):
        return f"{format_expr(e.lo, key_name)} .. {format_expr(e.hi, key_name)}"
    if isinstance(e, E.DefaultKeyset):
        return "default"
    if isinstance(e, E.Cast):
        return f"({e.type}){format_expr(e.expr, key_name)}"
    if isinstance(e, E.Call):
        return f"{format_expr(e.target, key_name)}({', '.join(format_expr(a.value, key_name) for a in e.args)})"
    if isinstance(e, E.Binary):
        return f"({format_expr(e.left, key_name)} {e.op} {format_expr(e.right, key_name)})"
    if isinstance(e, E.ListExpr):
        return "{" + ", ".join(format_expr(x, key_name) for x in e.elements) + "}"
    if isinstance(e, E.StructInit):
        return "{ " + ", ".join(f"{f.name} = {format_expr(f.value, key_name)}" for f in e.fields) + " }"
    return type(e).__name__


def _call(a: P.ActionCall) -> str:
    return f"{a.action}({', '.join(format_expr(x) for x in a.args)})"


def summarize(program: P.Program) -> str:
    """Headers, parser states, controls with tables, and extern instances, as indented text."""
    lines = [f"program {program.source}"]
    if program.package is not None:
        blocks = ", ".join(f"{slot}={name}" for slot, name in program.package.blocks)
        lines.append(f"  architecture {program.architecture}: {program.package.name} = "
                     f"{program.package.type_name}({blocks})")
    user_headers = [h for h in program.headers.values()]
    if user_headers:
        lines.append("headers:")
        for h in user_headers:
            fields = ", ".join(f"{f.name}:{'varbit' if f.varbit else ('int' if f.signed else 'bit')}<{f.width}>@{f.offset}"
                               for f in h.fields)
            lines.append(f"  {h.name} ({h.width} bits): {fields}")
    for parser in program.parsers.values():
        lines.append(f"parser {parser.name}: {len(parser.states)} state(s)")
        for st in parser.states.values():
            if st.select:
                keys = ", ".join(format_expr(k) for k in st.select)
                cases = "; ".join(f"{', '.join(format_expr(k) for k in c.keysets)} -> {c.next_state}" for c in st.cases)
                lines.append(f"  state {st.name}: select({keys}) {{ {cases} }}")
            else:
                lines.append(f"  state {st.name} -> {st.next_state}")
    for control in program.controls.values():
        lines.append(f"control {control.name}: {len(control.actions)} action(s), {len(control.tables)} table(s)")
        for t in control.tables.values():
            keys = ", ".join(f"{k.name}:{k.match_kind}" for k in t.keys) or "no key"
            acts = ", ".join(a.action for a in t.actions)
            extra = []
            if t.size is not None:
                extra.append(f"size {t.size}")
            if t.entries:
                extra.append(f"{len(t.entries)} {'const ' if t.entries_const else ''}entries")
            if t.implementation:
                extra.append(f"implementation {t.implementation}")
            if t.counters:
                extra.append(f"counters {t.counters}")
            if t.meters:
                extra.append(f"meters {t.meters}")
            tail = f" [{'; '.join(extra)}]" if extra else ""
            const = "const " if t.default_action_const else ""
            lines.append(f"  table {t.name} key({keys}) actions({acts}) default {const}{_call(t.default_action)}{tail}")
    instances = list(program.instances)
    for block in list(program.parsers.values()) + list(program.controls.values()):
        instances += [i for i in block.instances if i not in instances]
    if instances:
        lines.append("externs:")
        for inst in instances:
            targs = f"<{', '.join(map(str, inst.type_args))}>" if inst.type_args else ""
            args = ", ".join(format_expr(a) for a in inst.args)
            lines.append(f"  {inst.extern}{targs}({args}) {inst.name}")
    return "\n".join(lines)
