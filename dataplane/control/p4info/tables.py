"""Tables and actions of a P4Info message, as p4c's P4RuntimeAnalyzer writes them."""
from __future__ import annotations

from p4.config.v1 import p4info_pb2

from dataplane.control.p4info import ids
from dataplane.control.p4info.annotations import add_annotations, add_documentation, set_preamble, user_id
from dataplane.control.p4info.ids import P4InfoError
from dataplane.control.p4info.key_names import key_name
from dataplane.control.p4info.type_info import TypeSpecs, bytes_of, type_name
from dataplane.ir import expr as E
from dataplane.ir import program as P
from dataplane.ir import types as T
from dataplane.ir.node import Annotation, annotation

DEFAULT_TABLE_SIZE = 1024   # v1model's default, which p4c uses for every architecture

_MATCH_TYPES = {"exact": p4info_pb2.MatchField.EXACT, "lpm": p4info_pb2.MatchField.LPM,
                "ternary": p4info_pb2.MatchField.TERNARY, "range": p4info_pb2.MatchField.RANGE,
                "optional": p4info_pb2.MatchField.OPTIONAL}
_DEFAULT_ONLY = (Annotation("defaultonly"),)


def allocate_field_ids(annotation_lists: list[tuple], what: str) -> list[int]:
    """Ids of match fields, parameters or metadata fields as p4c's FieldIdAllocator gives them:
    ``@id`` values first, then 1, 2, ... by position, skipping taken ones."""
    out: list[int | None] = []
    taken: set[int] = set()
    for anns in annotation_lists:
        uid = user_id(anns, what)
        if uid is not None:
            if uid == 0:
                raise P4InfoError(f"{what}: 0 is not a valid @id value")
            if uid in taken:
                raise P4InfoError(f"{what}: @id {uid} is used multiple times")
            taken.add(uid)
        out.append(uid)
    index = 1
    for i, uid in enumerate(out):
        if uid is not None:
            index += 1
            continue
        while index in taken:
            index += 1
        out[i] = index
        taken.add(index)
    return out


class ActionScope:
    """Where an action lives: its control (or "" at the top level) and its declaration."""

    def __init__(self, program: P.Program, control: P.Control):
        self.program = program
        self.control = control

    def lookup(self, name: str) -> tuple[str, P.Action]:
        local = self.control.actions.get(name)
        if local is not None:
            return P.control_plane_name(self.control.name, name, local.annotations), local
        action = self.program.actions[name]
        return P.control_plane_name("", name, action.annotations), action


def table_name(control: P.Control, table: P.Table) -> str:
    return P.control_plane_name(control.name, table.name, table.annotations)


def table_action_refs(table: P.Table) -> list[P.ActionCall]:
    """The table's action list as p4c sees it: an implicit ``NoAction`` default is added,
    marked ``@defaultonly``, when the table names no default action and does not list it."""
    refs = list(table.actions)
    listed = {r.action for r in refs}
    if table.default_action.action not in listed:
        refs.append(P.ActionCall(table.default_action.action, (), _DEFAULT_ONLY))
    return refs


def add_action(info: p4info_pb2.P4Info, symbols: ids.SymbolTable, specs: TypeSpecs, name: str,
               action: P.Action) -> None:
    """An ``actions`` entry with its parameters (once per name)."""
    if annotation(action.annotations, "hidden") is not None:
        return
    if any(a.preamble.name == name for a in info.actions):
        return
    msg = info.actions.add()
    set_preamble(msg.preamble, symbols.id(ids.ACTION, name), name, symbols.alias(name), action.annotations)
    params = [(p, anns) for p, anns in zip(action.params, action.param_annotations or [()] * len(action.params))
              if not p.direction]
    pids = allocate_field_ids([anns for _, anns in params], f"action {name}")
    for (p, anns), pid in zip(params, pids):
        m = msg.params.add()
        m.id = pid
        named = annotation(anns, "name")
        m.name = named.string_value if named is not None else p.name
        add_annotations(m, anns)
        add_documentation(m, anns)
        t = p.type
        base = T.strip_newtype(t)
        if not isinstance(base, (T.Bits, T.Bool, T.Enum)):
            raise P4InfoError(f"action {name}: parameter '{p.name}' has type {t}, which is not bit<>, int<>, "
                              "bool, type or serializable enum", action.span)
        if not (isinstance(t, T.Enum) and t.underlying is None):
            m.bitwidth = specs.width(t)
        specs.spec(t)
        if type_name(t):
            m.type_name.name = type_name(t)
        elif isinstance(t, T.Enum) and t.underlying is None:
            m.type_name.name = t.name


def add_table(info: p4info_pb2.P4Info, symbols: ids.SymbolTable, specs: TypeSpecs, scope: ActionScope,
              table: P.Table, timeout_property: str) -> p4info_pb2.Table:
    """A ``tables`` entry: match fields, action refs, default action, size and flags."""
    name = table_name(scope.control, table)
    msg = info.tables.add()
    set_preamble(msg.preamble, symbols.id(ids.TABLE, name), name, symbols.alias(name), table.annotations)
    msg.size = table.size or DEFAULT_TABLE_SIZE
    default_name, default_action = scope.lookup(table.default_action.action)
    default_id = symbols.id(ids.ACTION, default_name)
    if table.default_action_const:
        msg.const_default_action_id = default_id
    msg.initial_default_action.action_id = default_id
    data = [p for p in default_action.params if not p.direction]
    anns = [a for p, a in zip(default_action.params,
                              default_action.param_annotations or [()] * len(default_action.params))
            if not p.direction]
    for i, (arg, param) in enumerate(zip(table.default_action.args, data)):
        value = constant_bytes(arg, specs.width(param.type))
        if value is None:
            continue
        a = msg.initial_default_action.arguments.add()
        uid = user_id(anns[i], f"parameter {param.name}")
        a.param_id = uid if uid is not None else i + 1
        a.value = value
    for ref in table_action_refs(table):
        aname, _ = scope.lookup(ref.action)
        r = msg.action_refs.add()
        r.id = symbols.id(ids.ACTION, aname)
        add_annotations(r, ref.annotations)
        table_only = annotation(ref.annotations, "tableonly") is not None
        default_only = annotation(ref.annotations, "defaultonly") is not None
        if table_only and default_only:
            raise P4InfoError(f"table '{name}' has an action reference ('{aname}') annotated with both "
                              "'@tableonly' and '@defaultonly'", table.span)
        r.scope = (p4info_pb2.ActionRef.TABLE_ONLY if table_only else
                   p4info_pb2.ActionRef.DEFAULT_ONLY if default_only else p4info_pb2.ActionRef.TABLE_AND_DEFAULT)
    kids = allocate_field_ids([k.annotations for k in table.keys], f"table {name}")
    for key, kid in zip(table.keys, kids):
        if key.match_kind == "selector":
            continue
        m = msg.match_fields.add()
        m.id = kid
        m.name = key_name(key)
        kanns = key.annotations
        add_annotations(m, kanns)
        add_documentation(m, kanns)
        t = key.expr.type
        specs.spec(t)   # records a user-defined key type in type_info
        m.bitwidth = specs.width(t)
        if key.match_kind in _MATCH_TYPES:
            m.match_type = _MATCH_TYPES[key.match_kind]
        else:
            m.other_match_type = key.match_kind
        if type_name(t):
            m.type_name.name = type_name(t)
    if table.entries_const:
        msg.is_const_table = True
    if table.entries:
        msg.has_initial_entries = True
    timeout = dict(table.properties).get(timeout_property)
    if timeout is not None and _is_notify(timeout):
        msg.idle_timeout_behavior = p4info_pb2.Table.NOTIFY_CONTROL
    return msg


def _is_notify(value: E.Expr) -> bool:
    if isinstance(value, E.BoolLiteral):
        return value.value
    if isinstance(value, E.TypeMember):
        return value.member == "NOTIFY_CONTROL"
    if isinstance(value, E.PathExpr):
        return value.name == "NOTIFY_CONTROL"
    return False


def constant_bytes(value: E.Expr, width: int) -> bytes | None:
    """A compile-time argument as P4Runtime bytes (p4c's stringRepr), or None if it is not simple."""
    while isinstance(value, E.Cast):
        value = value.expr
    if isinstance(value, E.Constant):
        return bytes_of(value.value, width)
    if isinstance(value, E.BoolLiteral):
        return bytes_of(int(value.value), width)
    if isinstance(value, E.TypeMember) and isinstance(value.type, T.Enum) and value.type.values is not None:
        enum = value.type
        return bytes_of(enum.values[enum.members.index(value.member)], width)
    return None
