"""A table as the generated code sees it: look up a key, get the action to run and its arguments.

Entries hold the generated action function itself, so a hit costs one lookup in the
match structure and one call. Direct counters and meters attached to the table are
updated here, on hits, as in BMv2.
"""
from __future__ import annotations

from typing import Any, Callable

from dataplane.engine.runtime import pack_fields
from dataplane.engine.source_map import trace_label
from dataplane.engine.table_errors import TableError
from dataplane.engine.tables import MatchTable
from dataplane.errors import DataplaneError
from dataplane.ir import expr as E
from dataplane.ir import program as P
from dataplane.ir import types as T
from dataplane.records import record

# BMv2 priorities are smallest-wins; the switch API is P4Runtime's largest-wins: LIMIT - p.
BMV2_PRIORITY_LIMIT = 1 << 24


@record(eq=False, slots=True)
class ActionEntry:
    """What a lookup returns: the action function, its data arguments, and whether it was a hit."""

    fn: Callable
    args: tuple
    name: str
    hit: bool = True
    key: tuple = ()
    priority: int | None = None
    handle: int | None = None
    members: list | None = None  # action selector group: the entry runs one member, chosen by hash
    packets: int = 0  # direct counter
    bytes: int = 0
    meter: Any = None  # direct meter state (set by the meter extern)
    last_hit_us: int | None = None  # device time of the last hit, kept for tables with support_timeout
    expire_profile: int | None = None  # PNA: the entry's expire time profile id (arch/pna_expiry.py)
    expire_start_us: int = 0           # PNA: when its expire timer last (re)started
    expire_notified: bool = False      # PNA NOTIFY_CONTROL: reported since that restart


class RuntimeTable:
    """One table of one switch: its match structure, default entry and the actions it may run."""

    def __init__(self, table: P.Table, qualified_name: str, control: str, key_layout: list[tuple[str, int]]):
        self.table = table
        self.qualified_name = qualified_name
        self.control = control
        # Selector fields are not matched: they feed the hash that picks a group member.
        self.selector_fields = [i for i, (kind, _) in enumerate(key_layout) if kind == "selector"]
        self.match_fields = [i for i, (kind, _) in enumerate(key_layout) if kind != "selector"]
        self.key_layout = [key_layout[i] for i in self.match_fields]
        self.selector_widths = [key_layout[i][1] for i in self.selector_fields]
        self.selector_hash: Callable[[bytes], int] | None = None
        self.match = MatchTable(self.key_layout, name=qualified_name)
        self.actions: dict[str, Callable] = {}
        self.has_direct_counter = table.counters is not None
        self.has_direct_meter = table.meters is not None
        self.direct_meter: Any = None
        # support_timeout = true: hits are time-stamped for P4Runtime's idle timeouts (slow path only).
        self.support_timeout = any(n == "support_timeout" and isinstance(v, E.BoolLiteral) and v.value
                                   for n, v in table.properties)
        self._default: ActionEntry | None = None
        self.initial_default: ActionEntry | None = None

    @property
    def default(self) -> ActionEntry | None:
        """The entry a miss runs; setting it counts as an edit of the table (``MatchTable.on_edit``)."""
        return self._default

    @default.setter
    def default(self, entry: ActionEntry | None) -> None:
        self._default = entry
        if self.match.on_edit is not None:
            self.match.on_edit()

    def bind(self, generated: dict[str, Callable], program: P.Program | None = None) -> None:
        """Attach the generated action functions (keyed ``Control.action``) and set the default
        (a serializable enum member among its arguments is its number, as in entries)."""
        names = {a.action for a in self.table.actions} | {self.table.default_action.action}
        # An action listed with arguments for its directional parameters has a wrapper per table.
        self.actions = {n: generated.get(f"{self.qualified_name}/{n}") or generated[f"{self.control}.{n}"]
                        for n in names}
        d = self.table.default_action
        args = tuple(_const_value(a, program) if program is not None and isinstance(a, (E.TypeMember, E.Cast))
                     else a.value for a in d.args)
        self.initial_default = ActionEntry(self.actions[d.action], args, d.action, False)
        self.default = self.initial_default

    def install_entries(self, program: P.Program) -> None:
        """Install the table's ``entries`` / ``const entries`` in program order (handles 0, 1, ...).

        With ``priority = N`` on some entry, priorities follow p4c's ``EntryPriorities`` pass:
        explicit values count down by ``priority_delta`` for the entries after them, and
        ``largest_priority_wins = false`` makes smaller numbers win. Otherwise they are what
        p4c's BMv2 back end writes and simple_switch compares: an entry's ``@priority(N)``,
        else its position (1, 2, ...), the smallest number winning, so with no annotation the
        first entry wins among overlapping ones. Exact and lpm tables ignore priorities (lpm:
        longest prefix wins).
        """
        entries = self.table.entries
        if not entries:
            return
        props = {name: value for name, value in self.table.properties}
        largest_wins = not (isinstance(props.get("largest_priority_wins"), E.BoolLiteral)
                            and not props["largest_priority_wins"].value)
        delta = props.get("priority_delta")
        delta = delta.value if isinstance(delta, E.Constant) else 1
        if all(e.priority is None for e in entries):
            # BMv2's numbers, smallest wins, as a simple_switch_CLI file's are taken.
            largest_wins = True
            prios = [BMV2_PRIORITY_LIMIT - (i + 1 if e.annotated_priority is None else e.annotated_priority)
                     for i, e in enumerate(entries)]
        else:
            prios, current = [], 0
            for e in entries:
                current = e.priority if e.priority is not None else current
                prios.append(current)
                current = current - delta if largest_wins else current + delta
        for entry, prio in zip(entries, prios):
            key = tuple(_entry_key(k, kind, width, program, self.qualified_name)
                        for k, (kind, width) in zip((entry.keys[i] for i in self.match_fields), self.key_layout))
            name = entry.action.action
            args = tuple(_const_value(a, program) for a in entry.action.args)
            value = ActionEntry(self.actions[name], args, name, True)
            priority = (prio if largest_wins else -prio) if self.match.uses_priority else None
            try:
                value.handle = self.match.add(key, priority, value)
            except TableError as err:
                raise DataplaneError(f"table '{self.qualified_name}': entry at line {entry.span.line}: {err}") from None
            value.key, value.priority = key, priority

    @property
    def plain_lookup(self) -> bool:
        """Whether a lookup is just the match structure's plus the default on a miss.

        True without selector fields, direct counter or direct meter, when the class keeps
        this ``lookup``; the generated code then calls ``match.lookup`` itself and reports
        to the trace as ``lookup`` does.
        """
        return (type(self).lookup is RuntimeTable.lookup and not self.selector_fields
                and not self.has_direct_counter and not self.has_direct_meter and not self.support_timeout)

    def lookup(self, key: tuple, ctx) -> ActionEntry:
        full = key
        if self.selector_fields:
            key = tuple(full[i] for i in self.match_fields)
        entry = self.match.lookup(key)
        if entry is not None and entry.members is not None:
            entry = self._select(entry, full)
        if entry is None:
            entry = self.default
        else:
            if self.has_direct_counter:
                entry.packets += 1
                entry.bytes += ctx.packet_length
            if self.has_direct_meter and self.direct_meter is not None:
                ctx.direct_meter_color = self.direct_meter.color_for(entry, ctx)
            if self.support_timeout:
                entry.last_hit_us = ctx.now_us
        if ctx.trace is not None:
            ctx.trace.table(self.qualified_name, key, entry, trace_label(self.table.span))
        return entry

    def _select(self, group: ActionEntry, full: tuple) -> ActionEntry | None:
        """The group member an action selector picks: hash of the selector fields modulo the size."""
        if not group.members:
            return None
        fields = [(True, full[i], w) for i, w in zip(self.selector_fields, self.selector_widths)]
        h = self.selector_hash(pack_fields(fields)) if self.selector_hash is not None else 0
        member = group.members[h % len(group.members)]
        group.packets += 1
        return member

    def reset(self) -> None:
        self.match.clear()
        self.default = self.initial_default


def _const_value(e: E.Expr, program: P.Program) -> int:
    """The value of a constant expression in an entry: an int (bools and enum members as ints)."""
    if isinstance(e, E.Constant):
        t = T.strip_newtype(e.type) if e.type is not None else None
        return e.value & ((1 << t.width) - 1) if isinstance(t, T.Bits) and e.value < 0 else e.value
    if isinstance(e, E.BoolLiteral):
        return int(e.value)
    if isinstance(e, E.TypeMember):
        if e.type_name == "error":
            return program.errors.index(e.member)
        t = program.types.get(e.type_name)
        if isinstance(t, T.Enum):
            i = t.members.index(e.member)
            return t.values[i] if t.values is not None else i
    if isinstance(e, E.Cast) and e.expr is not None:
        return _const_value(e.expr, program)
    raise DataplaneError(f"unsupported: entry value {type(e).__name__} at line {e.span.line}")


def _entry_key(k: E.Expr, kind: str, width: int, program: P.Program, table: str):
    """One field of a ``const entries`` key in the form ``MatchTable.add`` takes for ``kind``."""
    full = (1 << width) - 1
    dont_care = isinstance(k, E.DefaultKeyset)
    if kind == "exact":
        if dont_care:
            raise DataplaneError(f"table '{table}': an exact key cannot be '_' (line {k.span.line})")
        return _const_value(k, program)
    if kind == "optional":
        return None if dont_care else _const_value(k, program)
    if kind == "range":
        if dont_care:
            return (0, full)
        if isinstance(k, E.Range):
            return (_const_value(k.lo, program), _const_value(k.hi, program))
        v = _const_value(k, program)
        return (v, v)
    # ternary and lpm
    if dont_care:
        return (0, 0)
    if isinstance(k, E.Mask):
        value, mask = _const_value(k.value, program), _const_value(k.mask, program)
    else:
        value, mask = _const_value(k, program), full
    if kind == "ternary":
        return (value & mask, mask)
    plen = bin(mask).count("1")
    if mask != (full ^ ((1 << (width - plen)) - 1)):
        raise DataplaneError(f"table '{table}': lpm mask {mask:#x} is not a prefix (line {k.span.line})")
    return (value & mask, plen)
