"""A table as the generated code sees it: look up a key, get the action to run and its arguments.

Entries hold the generated action function itself, so a hit costs one lookup in the
match structure and one call. Direct counters and meters attached to the table are
updated here, on hits, as in BMv2.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from dataplane.engine.runtime import pack_fields
from dataplane.engine.tables import MatchTable
from dataplane.ir import program as P


@dataclass(eq=False, slots=True)
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
        self.default: ActionEntry | None = None
        self.initial_default: ActionEntry | None = None

    def bind(self, generated: dict[str, Callable]) -> None:
        """Attach the generated action functions (keyed ``Control.action``) and set the default."""
        names = {a.action for a in self.table.actions} | {self.table.default_action.action}
        self.actions = {n: generated[f"{self.control}.{n}"] for n in names}
        d = self.table.default_action
        self.initial_default = ActionEntry(self.actions[d.action], tuple(a.value for a in d.args), d.action, False)
        self.default = self.initial_default

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
        if ctx.trace is not None:
            ctx.trace.table(self.qualified_name, key, entry)
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
