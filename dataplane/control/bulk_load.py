"""Bulk table writes: load hundreds of thousands of entries in seconds.

``Switch.table_add`` validates every call from text (names, action parameters, key
syntax), which costs tens of microseconds an entry. A FIB of 500,000 prefixes that share
a few next hops repeats the same action and data over and over, so here the action and
its data are validated once (``action_entry``) and every entry gets its own copy of that
template with its key and handle, installed straight into the table's match structure
(keys are still checked and normalized by the table, duplicates still refused).

    from dataplane.control.bulk_load import action_entry, add_lpm, modify_entries

    via_2 = action_entry(sw, "ipv4_lpm", "set_nhop", {"port": 2, "dmac": "02:00:00:00:00:02"})
    handles = add_lpm(sw, "ipv4_lpm", addresses, 24, [via_2] * len(addresses))   # a range
    modify_entries(sw, "ipv4_lpm", handles[:1000], action_entry(sw, "ipv4_lpm", "set_nhop", {...}))

Entries added here are ordinary entries: ``table_entries``, ``table_modify`` and
``table_delete`` see them. Tables with ternary, range or optional keys (which need
priorities) or with an action selector are not supported.
"""
from __future__ import annotations

from typing import Any, Iterable, Sequence

from dataplane.control.switch import ControlPlaneError, Switch
from dataplane.engine.table_errors import TableError
from dataplane.engine.table_runtime import ActionEntry, RuntimeTable

__all__ = ["action_entry", "add_entries", "add_lpm", "modify_entries", "entry_like"]


def action_entry(switch: Switch, table: str, action: str, params: Any = ()) -> ActionEntry:
    """A template entry: ``action`` with ``params``, validated as ``table_add`` validates them."""
    t = switch.table(table)
    _, entry = switch._entry(t, action, params)
    return entry


def entry_like(template: ActionEntry, key: tuple = (), handle: int | None = None) -> ActionEntry:
    """A fresh entry value with the template's action and data (the data tuple is shared)."""
    return ActionEntry(template.fn, template.args, template.name, True, key, None, handle)


def _bulk_table(switch: Switch, table: str) -> RuntimeTable:
    t = switch.table(table)
    if t.match.uses_priority or t.selector_fields:
        raise ControlPlaneError(f"table '{t.qualified_name}': bulk writes support exact and lpm keys only")
    return t


def add_entries(switch: Switch, table: str, keys: Iterable[tuple], values: Iterable[ActionEntry]) -> range:
    """Install one entry per (key, template) pair; returns the handles (consecutive, as a range).

    A key is a tuple with one item per match field in the form ``MatchTable.add`` takes:
    an int for exact fields, ``(value, prefix_len)`` for the lpm field. On an error the
    entries before the bad one stay installed and the error names its position.
    """
    t = _bulk_table(switch, table)
    match = t.match
    add, get = match.add, match.get
    first = last = None
    for i, (key, tmpl) in enumerate(zip(keys, values)):
        value = ActionEntry(tmpl.fn, tmpl.args, tmpl.name, True)
        try:
            h = add(key, None, value)
        except TableError as err:
            raise ControlPlaneError(f"bulk add to '{t.qualified_name}', entry {i}: {err}") from None
        value.key, value.handle = get(h).key, h
        if first is None:
            first = h
        elif h != last + 1:  # pragma: no cover - MatchTable hands out consecutive handles
            raise ControlPlaneError(f"bulk add to '{t.qualified_name}': handles are not consecutive")
        last = h
    return range(0) if first is None else range(first, last + 1)


def add_lpm(switch: Switch, table: str, addresses: Sequence[int], prefix_len: int | Sequence[int],
            values: ActionEntry | Sequence[ActionEntry]) -> range:
    """Install prefixes into a table keyed by one lpm field.

    ``addresses`` are ints; ``prefix_len`` one length for all or one per address; ``values``
    one template for all or one per address. Returns the handles, in address order.
    """
    t = _bulk_table(switch, table)
    if len(t.key_layout) != 1 or t.key_layout[0][0] != "lpm":
        raise ControlPlaneError(f"table '{t.qualified_name}': add_lpm needs a table keyed by one lpm field")
    n = len(addresses)
    lens = [prefix_len] * n if isinstance(prefix_len, int) else prefix_len
    vals = [values] * n if isinstance(values, ActionEntry) else values
    if len(lens) != n or len(vals) != n:
        raise ControlPlaneError(f"add_lpm: {n} address(es) but {len(lens)} prefix length(s) and {len(vals)} value(s)")
    return add_entries(switch, table, (((a, p),) for a, p in zip(addresses, lens)), vals)


def modify_entries(switch: Switch, table: str, handles: Iterable[int],
                   values: ActionEntry | Iterable[ActionEntry]) -> int:
    """Point each entry in ``handles`` at a template's action and data (one template for all,
    or one per handle); returns how many entries changed."""
    t = _bulk_table(switch, table)
    match = t.match
    get, modify = match.get, match.modify
    pairs = ((h, values) for h in handles) if isinstance(values, ActionEntry) else zip(handles, values)
    n = 0
    for h, tmpl in pairs:
        try:
            key = get(h).key
        except TableError as err:
            raise ControlPlaneError(f"bulk modify of '{t.qualified_name}': {err}") from None
        modify(h, ActionEntry(tmpl.fn, tmpl.args, tmpl.name, True, key, None, h))
        n += 1
    return n
