"""Type checker, part 5: tables (keys, action lists, default actions, const entries) and keysets."""
from __future__ import annotations

import dataclasses

from dataplane.ir import decl as D
from dataplane.ir import expr as E
from dataplane.ir import program as P
from dataplane.ir import types as T
from dataplane.ir.node import annotation
from dataplane.ir.summary import format_expr
from dataplane.lang.check.types import UNKNOWN, is_unknown

_KEY_TYPES = (T.Bits, T.Bool, T.Enum, T.ErrorType)
# Externs a table's `implementation` may name: v1model's action profiles and selectors, and
# the eBPF model's map kinds (ebpf_model.p4: array_table, hash_table).
_IMPLEMENTATIONS = ("action_profile", "action_selector", "array_table", "hash_table")
_WILDCARD_KINDS = {"ternary", "lpm", "range", "optional", "selector"}


class TableMixin:
    """Checks table declarations and produces ``ir.program.Table``."""

    def check_keyset(self, k: E.Expr, key_type: T.Type, match_kind: str | None, what: str) -> E.Expr:
        if isinstance(k, E.DefaultKeyset):
            if match_kind == "exact":
                self.error(f"{what}: an exact key cannot be a wildcard", k.span, code="keyset")
            return E.DefaultKeyset(type=key_type, span=k.span)
        if isinstance(k, E.Mask):
            if match_kind not in (None, "ternary", "lpm"):
                self.error(f"{what}: a mask '&&&' needs a ternary or lpm key, not {match_kind}", k.span, code="keyset")
            value = self._keyset_value(k.value, key_type, what)
            # A serializable enum's mask is a number of its underlying type (p4c accepts `E.A &&& 0xff00`).
            mask_type = key_type.underlying if isinstance(key_type, T.Enum) and key_type.underlying else key_type
            mask = self._keyset_value(k.mask, mask_type, what)
            return E.Mask(value, mask, type=key_type, span=k.span)
        if isinstance(k, E.Range):
            if match_kind not in (None, "range"):
                self.error(f"{what}: a range '..' needs a range key, not {match_kind}", k.span, code="keyset")
            lo = self._keyset_value(k.lo, key_type, what)
            hi = self._keyset_value(k.hi, key_type, what)
            return E.Range(lo, hi, type=key_type, span=k.span)
        if isinstance(k, E.TupleKeyset):
            self.error(f"{what}: a tuple keyset needs as many keys as it has elements", k.span, code="keyset")
            return E.DefaultKeyset(type=UNKNOWN, span=k.span)
        return self._keyset_value(k, key_type, what)

    def _keyset_value(self, e: E.Expr, key_type: T.Type, what: str) -> E.Expr:
        value = self.convert(self.check_expr(e, key_type), key_type, what)
        if isinstance(value, E.Cast) and isinstance(value.expr, E.TypeMember) and isinstance(value.type, T.Bits):
            # A serializable enum member where its underlying type is expected: its number.
            member = value.expr
            enum = self.types.get(member.type_name)
            if isinstance(enum, T.Enum) and enum.values is not None and member.member in enum.members:
                number = enum.values[enum.members.index(member.member)]
                value = E.Constant(number, type=value.type, span=value.span)
        if not is_unknown(value.type) and not isinstance(value, (E.Constant, E.BoolLiteral, E.TypeMember)):
            self.error(f"{what}: keyset values must be compile-time constants", e.span, code="not-constant")
        return value

    def check_table(self, d: D.TableDecl) -> P.Table:
        keys: list[P.TableKey] = []
        actions: list[P.ActionCall] = []
        default = None
        default_const = False
        entries: list[P.Entry] = []
        entries_const = False
        size = implementation = counters = meters = None
        others: list[tuple[str, E.Expr]] = []
        seen: set[str] = set()
        for prop in d.properties:
            if prop.name in seen:
                self.error(f"table '{d.name}' sets '{prop.name}' twice", prop.span, code="duplicate")
            seen.add(prop.name)
            if prop.name == "key":
                keys = [self._check_key(k) for k in prop.value]
            elif prop.name == "actions":
                actions = [a for a in (self._check_action_ref(r, d.name) for r in prop.value) if a is not None]
                self.check_action_list(d.name, prop.value)
            elif prop.name == "default_action":
                default_ref, default_const = prop.value, prop.is_const
            elif prop.name == "entries":
                entries_decl, entries_const = prop.value, prop.is_const
            elif prop.name == "size":
                size = self.const_int(prop.value, "table size")
            elif prop.name == "implementation":
                implementation = self._instance_ref(prop.value, d.name, _IMPLEMENTATIONS, prop.annotations)
            elif prop.name == "counters":
                counters = self._instance_ref(prop.value, d.name, ("direct_counter",), prop.annotations)
            elif prop.name == "meters":
                meters = self._instance_ref(prop.value, d.name, ("direct_meter",), prop.annotations)
            else:
                others.append((prop.name, self.check_expr(prop.value)))
        if "actions" not in seen:
            self.error(f"table '{d.name}' has no 'actions' property", d.span, code="table")
        listed = {a.action: a for a in actions}
        self.table_actions[d.name] = set(listed)
        if "default_action" in seen and self.check_default_order(d):
            default = self._check_default(default_ref, listed, d.name)
        elif "default_action" not in seen:
            self.check_implicit_no_action(d)
        if default is None:
            default = P.ActionCall("NoAction")
        if "entries" in seen and not keys and entries_decl:
            # p4c (TypeInference on EntriesList): a table without a key, or with `key = {}`, takes no
            # entries (issue3442.p4); an empty `entries = {}` is accepted.
            self.error(f"entries cannot be specified for table '{d.name}', which has no key", d.prop("entries").span,
                       code="table-entry")
        elif "entries" in seen and self.check_entries_order(d):
            entries = [e for e in (self._check_entry(x, keys, listed, d.name) for x in entries_decl) if e is not None]
            self.check_entry_set(d, keys, entries_decl, entries, entries_const)
        if size is not None and size < 0:
            self.error(f"table '{d.name}' size must not be negative", d.prop("size").span, code="out-of-range")
        elif size == 0:
            size = None   # p4c (getTableSize, BMv2's max_size) takes 0 for the default size
        return P.Table(d.name, tuple(keys), tuple(actions), default, default_const, tuple(entries), entries_const,
                       size, implementation, counters, meters, tuple(others), d.annotations, d.span)

    def _check_key(self, k: D.KeyElement) -> P.TableKey:
        # A key is evaluated when its table is applied, so it may apply another table (p4c
        # evaluates such a key into a temporary just before the lookup).
        with self.context("apply"):
            expr = self.check_expr(k.expr)
        self.check_key_name(k)
        if k.match_kind not in self.match_kinds:
            self.error(f"unknown match kind '{k.match_kind}'", k.span, code="unknown-member")
        elif not is_unknown(expr.type) and not isinstance(T.strip_newtype(expr.type), _KEY_TYPES):
            self.error(f"a table key cannot have type {expr.type}", k.expr.span, code="table")
        named = annotation(k.annotations, "name")
        return P.TableKey(expr, k.match_kind, named.string_value if named else format_expr(k.expr, key_name=True), k.span,
                          k.annotations)

    def _top_shadowed(self, ref: D.ActionRef) -> bool:
        """Whether ``ref`` is written ``.a`` while the control has an action ``a`` of its own."""
        if not ref.top:
            return False
        root = self.scope
        while root.parent is not None:
            root = root.parent
        return root.names.get(ref.name) is not self.scope.lookup(ref.name)

    def _check_action_ref(self, ref: D.ActionRef, table: str) -> P.ActionCall | None:
        if self._top_shadowed(ref):
            self.error(f"unsupported: '.{ref.name}' names the top-level action while the control declares "
                       f"its own '{ref.name}'; rename one of them", ref.span, code="unsupported")
            return None
        sym = self.scope.lookup(ref.name)
        if sym is None or sym.kind != "action":
            what = "unknown action" if sym is None else "not an action:"
            self.error(f"{what} '{ref.name}' in the actions of table '{table}'", ref.span, code="table")
            return None
        method: T.Method = sym.type
        directional = T.Method(ref.name, tuple(p for p in method.params if p.direction))
        result = self.check_args(ref.args, [directional], f"action '{ref.name}' in table '{table}'", ref.span, {})
        args = tuple(a.value for a in result[1]) if result else ()
        return P.ActionCall(ref.name, args, ref.annotations)

    def _check_default(self, ref: D.ActionRef, listed: dict, table: str) -> P.ActionCall | None:
        if self._top_shadowed(ref) and ref.name in listed:
            self.error(f".{ref.name}() and {ref.name} refer to different actions (the top-level one and "
                       f"the control's, which table '{table}' lists)", ref.span, code="table")
            return None
        if ref.name not in listed:
            self.error(f"default action '{ref.name}' is not in the actions of table '{table}'", ref.span, code="table")
            return None
        if annotation(listed[ref.name].annotations, "tableonly"):
            self.error(f"action '{ref.name}' is @tableonly and cannot be the default action", ref.span, code="table")
        return self._action_call(ref, table, "default action", listed[ref.name])

    def _action_call(self, ref: D.ActionRef, table: str, what: str, listed: P.ActionCall) -> P.ActionCall | None:
        method: T.Method = self.scope.lookup(ref.name).type
        data = tuple(p for p in method.params if not p.direction)
        full = len(ref.args) == len(method.params) and len(method.params) != len(data)
        params = method.params if full else data
        result = self.check_args(ref.args, [T.Method(ref.name, params)], f"{what} '{ref.name}' of table '{table}'",
                                 ref.span, {})
        if result is None:
            return None
        values = tuple(a.value for a in result[1])
        if full:
            self.check_bound_args(ref, method, values, listed, what)
            values = tuple(v for v, p in zip(values, method.params) if not p.direction)
        values = tuple(_fold_member_cast(v) for v in values)
        for v in values:
            if not is_unknown(v.type) and not isinstance(v, (E.Constant, E.BoolLiteral, E.TypeMember)):
                self.error(f"{what} arguments must be compile-time constants", v.span, code="not-constant")
        return P.ActionCall(ref.name, values)

    def _check_entry(self, e: D.EntryDecl, keys: list[P.TableKey], listed: dict, table: str) -> P.Entry | None:
        if len(e.keys) == 1 and isinstance(e.keys[0], E.ListExpr) and len(e.keys[0].elements) == len(keys):
            # `{(k)} : a();` (a list of the key values, as p4c takes it) names the keys one by one.
            e = dataclasses.replace(e, keys=tuple(e.keys[0].elements))
        elif len(e.keys) == 1 and isinstance(e.keys[0], (E.DefaultKeyset, E.DontCareExpr)) and len(keys) != 1:
            # A lone `_` (or `default`) matches the whole key, whatever its length (p4c types it as
            # don't-care, not a 1-tuple).
            e = dataclasses.replace(e, keys=tuple(E.DefaultKeyset(span=e.keys[0].span) for _ in keys))
        if len(e.keys) != len(keys):
            self.error(f"entry has {len(e.keys)} key value(s), table '{table}' has {len(keys)} key(s)", e.span,
                       code="table-entry")
            return None
        values = tuple(self.check_keyset(k, key.expr.type or UNKNOWN, key.match_kind, f"entry of table '{table}'")
                       for k, key in zip(e.keys, keys))
        if self._top_shadowed(e.action) and e.action.name in listed:
            self.error(f".{e.action.name}() and {e.action.name} refer to different actions (the top-level one and "
                       f"the control's, which table '{table}' lists)", e.action.span, code="table")
            return None
        if e.action.name not in listed:
            self.error(f"entry action '{e.action.name}' is not in the actions of table '{table}'", e.action.span,
                       code="table-entry")
            return None
        if annotation(listed[e.action.name].annotations, "defaultonly"):
            self.error(f"action '{e.action.name}' is @defaultonly and cannot be used in an entry", e.action.span,
                       code="table-entry")
        call = self._action_call(e.action, table, "entry action", listed[e.action.name])
        priority = annotated = None
        if e.priority is not None:
            priority = self.const_int(e.priority, "entry priority")
        prio = annotation(e.annotations, "priority")
        if prio is not None:
            try:
                annotated = int(prio.body.strip(), 0)
            except ValueError:
                self.error(f"@priority needs an integer, got '{prio.body}'", prio.span, code="annotation")
        return P.Entry(values, call or P.ActionCall(e.action.name), priority, e.span, e.is_const, annotated)

    def _instance_ref(self, value: E.Expr, table: str, kinds: tuple[str, ...], annotations: tuple = ()) -> str | None:
        if isinstance(value, E.ConstructorCall):
            checked = self.check_expr(value)
            name = f"{table}_{checked.type.name if isinstance(checked.type, T.Extern) else 'impl'}"
            if isinstance(checked.type, T.Extern):
                self.add_instance(P.ExternInstance(name, checked.type.name, checked.type.type_args,
                                                   tuple(a.value for a in checked.args), annotations, value.span))
            t = checked.type
        else:
            checked = self.check_expr(value)
            name = checked.name if isinstance(checked, E.PathExpr) else None
            t = checked.type
        if is_unknown(t):
            return None
        if not isinstance(t, T.Extern) or t.name not in kinds:
            self.error(f"table '{table}' needs {' or '.join(kinds)} here, not {t}", value.span, code="table")
            return None
        return name


def _fold_member_cast(v: E.Expr) -> E.Expr:
    """A serializable enum member implicitly cast to its bit<W> as the member's number: p4c folds
    it, so `set_x(foo_t.A)` is a constant action argument (serEnumImplCast.p4)."""
    if isinstance(v, E.Cast) and v.to is None and isinstance(v.expr, E.TypeMember) and isinstance(v.type, T.Bits):
        enum = v.expr.type
        if isinstance(enum, T.Enum) and enum.values is not None and v.expr.member in enum.members:
            return E.Constant(enum.values[enum.members.index(v.expr.member)], type=v.type, span=v.span)
    return v
