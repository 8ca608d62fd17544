"""Type checker, part 6: rules on a table's entries and on the action calls a table makes.

These are p4c's rules beyond typing each entry on its own: the entries list comes after
the key; explicit priorities only where a key needs them, with the first entry given one
and none falling below 0 (p4c's ``EntryPriorities``); no two entries with the same keys;
lpm masks that are prefixes (p4c's P4Runtime serializer); and a default action or entry
that passes the directional arguments the actions list binds (p4c's ``TypeInference``).
"""
from __future__ import annotations

import dataclasses

from dataplane.ir import decl as D
from dataplane.ir import expr as E
from dataplane.ir import program as P
from dataplane.ir import types as T
from dataplane.ir.summary import format_expr
from dataplane.lang.check.types import is_unknown

# Match kinds whose entries never carry a priority (p4c's EntryPriorities::requiresPriority).
_NO_PRIORITY_KINDS = ("exact", "lpm")


class EntriesMixin:
    """Checks that look at a table's entries together, and bound action arguments."""

    def check_entries_order(self, d: D.TableDecl) -> bool:
        """An ``entries`` list written before the ``key`` is an error (p4c types entries against the key)."""
        names = [p.name for p in d.properties]
        if "entries" in names and "key" in names and names.index("entries") < names.index("key"):
            self.error(f"the entries of table '{d.name}' must come after its 'key'", d.prop("entries").span,
                       code="table-entry")
            return False
        return True

    def check_default_order(self, d: D.TableDecl) -> bool:
        """The default action names an action of the list, so the list comes first (p4c)."""
        names = [p.name for p in d.properties]
        if "actions" in names and names.index("default_action") < names.index("actions"):
            self.error(f"the default_action of table '{d.name}' must come after its 'actions' list",
                       d.prop("default_action").span, code="table")
            return False
        return True

    def check_action_list(self, table: str, refs: tuple[D.ActionRef, ...]) -> None:
        """An action appears once in a table's actions list."""
        seen: set[str] = set()
        for r in refs:
            if r.name in seen:
                self.error(f"action '{r.name}' is listed twice in the actions of table '{table}'", r.span,
                           code="duplicate")
            seen.add(r.name)

    def check_implicit_no_action(self, d: D.TableDecl) -> None:
        """A table without default_action defaults to core.p4's NoAction, which must exist as p4c expects."""
        scope = self.scope
        while scope.parent is not None:
            scope = scope.parent
        sym = scope.names.get("NoAction")
        why = None
        if sym is None:
            why = "there is no NoAction"
        elif sym.kind != "action":
            why = "NoAction is not an action"
        elif sym.type.params or (isinstance(sym.decl, D.ActionDecl) and sym.decl.body.stmts):
            why = "NoAction is not core.p4's action without parameters and body"
        if why is not None:
            self.error(f"table '{d.name}' has no default_action, so it defaults to NoAction, but {why}; "
                       "include core.p4 or give the table a default_action", d.span, code="table")

    def check_entry_set(self, d: D.TableDecl, keys: list[P.TableKey], decls: tuple[D.EntryDecl, ...],
                        entries: list[P.Entry], is_const: bool) -> None:
        """Priorities, duplicate keys and lpm masks of the entries that type-checked."""
        if not is_const:
            self._check_priorities(d, keys, decls)
        self._check_duplicates(d.name, keys, entries)
        for entry in entries:
            for value, key in zip(entry.keys, keys):
                if key.match_kind == "lpm" and isinstance(value, E.Mask):
                    self._check_lpm_mask(value, key)

    # ---- priorities ------------------------------------------------------------------------------
    def _check_priorities(self, d: D.TableDecl, keys: list[P.TableKey], decls: tuple[D.EntryDecl, ...]) -> None:
        given = [e for e in decls if e.priority is not None]
        if not keys or not given:
            return
        if all(k.match_kind in _NO_PRIORITY_KINDS for k in keys):
            self.error(f"entries of table '{d.name}' cannot have priorities: its keys are all exact or lpm, "
                       "which need none", given[0].priority.span, code="table-entry")
            return
        if decls[0].priority is None:
            self.error(f"the first entry of table '{d.name}' needs a priority, since later entries give one "
                       "(each entry without one takes the previous entry's, moved by priority_delta)", decls[0].span,
                       code="table-entry")
            return
        largest_wins, delta = self._priority_order(d)
        if delta is None:
            return
        current = 0
        for i, e in enumerate(decls):
            if e.priority is not None:
                value = self.const_int(e.priority, "entry priority")
                if value is None:
                    return
                if value < 0:
                    self.error(f"entry priority must not be negative, got {value}", e.priority.span, code="table-entry")
                    return
                current = value
            # p4c computes the next priority after every entry, the last one included.
            if largest_wins and current - delta < 0:
                self.error(f"the priorities of table '{d.name}' fall below 0 after entry {i + 1} (priority "
                           f"{current}): with largest_priority_wins each entry without a priority takes the "
                           f"previous one's minus priority_delta ({delta})", e.span, code="table-entry")
                return
            current = current - delta if largest_wins else current + delta

    def _priority_order(self, d: D.TableDecl) -> tuple[bool, int | None]:
        """(largest_priority_wins, priority_delta) of the table; delta None after an error."""
        largest_wins = True
        prop = d.prop("largest_priority_wins")
        if prop is not None:
            value = self.check_expr(prop.value)
            largest_wins = not (isinstance(value, E.BoolLiteral) and not value.value)
        prop = d.prop("priority_delta")
        if prop is None:
            return largest_wins, 1
        delta = self.const_int(prop.value, "priority_delta")
        if delta is None:
            return largest_wins, None
        if delta <= 0:
            self.error(f"priority_delta of table '{d.name}' must be positive, got {delta}", prop.value.span,
                       code="table-entry")
            return largest_wins, None
        return largest_wins, delta

    # ---- duplicates and lpm masks -----------------------------------------------------------------
    def _check_duplicates(self, table: str, keys: list[P.TableKey], entries: list[P.Entry]) -> None:
        seen: dict[tuple, P.Entry] = {}
        for entry in entries:
            sig = tuple(_keyset_signature(k) for k in entry.keys)
            if None in sig:
                continue
            first = seen.get(sig)
            if first is not None:
                self.error(f"entry of table '{table}' has the same keys as the entry at line {first.span.line}",
                           entry.span, code="table-entry")
                continue
            seen[sig] = entry

    def _check_lpm_mask(self, value: E.Mask, key: P.TableKey) -> None:
        mask = value.mask
        width = key.expr.type.width if isinstance(key.expr.type, T.Bits) else None
        if not isinstance(mask, E.Constant) or width is None:
            return
        m = mask.value & ((1 << width) - 1)
        ones = bin(m).count("1")
        zeros = width if m == 0 else (m & -m).bit_length() - 1
        if ones + zeros != width:
            self.error(f"invalid mask {format_expr(value.mask)} for lpm key '{key.name}': an lpm mask must be "
                       f"a prefix (ones, then zeros) of the key's {width} bits", value.span, code="keyset")

    # ---- directional arguments bound by the actions list ------------------------------------------
    def check_bound_args(self, ref: D.ActionRef, method: T.Method, values: tuple[E.Expr, ...],
                         listed: P.ActionCall, what: str) -> None:
        """A call naming every parameter passes the same directional arguments as the actions list."""
        bound = [v for v, p in zip(values, method.params) if p.direction]
        for given, expected, p in zip(bound, listed.args, (p for p in method.params if p.direction)):
            if is_unknown(given.type, expected.type):
                continue
            if _strip(given) != _strip(expected):
                self.error(f"{what} '{ref.name}': argument '{format_expr(given)}' for '{p.direction} {p.name}' "
                           f"does not match the actions list, which binds '{format_expr(expected)}'", given.span,
                           code="table")
                return


def _keyset_signature(k: E.Expr) -> tuple | None:
    """What makes two keysets the same entry key; None when it is not a plain constant keyset."""
    if isinstance(k, E.DefaultKeyset):
        return ("_",)
    if isinstance(k, (E.Constant, E.BoolLiteral)):
        return ("v", k.value)
    if isinstance(k, E.TypeMember):
        return ("m", k.type_name, k.member)
    if isinstance(k, E.Mask):
        parts = (_keyset_signature(k.value), _keyset_signature(k.mask))
        return None if None in parts else ("&&&",) + parts
    if isinstance(k, E.Range):
        parts = (_keyset_signature(k.lo), _keyset_signature(k.hi))
        return None if None in parts else ("..",) + parts
    return None


def _strip(e):
    """``e`` without source positions or literal bases, for comparing two expressions by meaning."""
    if isinstance(e, tuple):
        return tuple(_strip(x) for x in e)
    if not dataclasses.is_dataclass(e) or isinstance(e, T.Type):
        return e
    values = {f.name: _strip(getattr(e, f.name)) for f in dataclasses.fields(e) if f.name not in ("span", "base")}
    if isinstance(e, E.StructInit):  # fields by name: `{ a = x, b = y }` is `{ b = y, a = x }`
        values["fields"] = tuple(sorted(values["fields"], key=repr))
    return (type(e).__name__, tuple(sorted(values.items(), key=lambda kv: kv[0])))
