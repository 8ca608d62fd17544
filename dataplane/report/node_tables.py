"""One node's tables for the report: each table's entries, default action, hits and misses (from
the recorder's ``TableCounts``), and its counters' totals. ``collect`` calls it for every node of
a one-process run; on several ranks (``ranks``) each node's own rank does, before the merge."""
from __future__ import annotations

from typing import Any


def node_tables(node: Any, recorder: Any) -> tuple[dict, dict, int]:   # recorder: a record.Recorder, or None
    """One node's rows of ``tables``, its counters' totals, and how many entries it holds."""
    api = node.api
    counts = recorder.tables.get(node.name) if recorder is not None else None
    rows = {}
    for tname, rt in sorted(api.table_names().items()):
        rows[tname] = {"entries": installed_entries(api, tname),
                       "default": rt.default.name if rt.default is not None else None,
                       "hits": counts.hits.get(rt.qualified_name, 0) if counts is not None else None,
                       "misses": counts.misses.get(rt.qualified_name, 0) if counts is not None else None}
    totals = {name: list(v) for name, v in sorted(api.counter_totals().items())}
    for tname, rt in api.table_names().items():
        if rt.has_direct_counter:
            entries = api.table_entries(tname)
            totals[f"{tname} (direct)"] = [sum(e.packets for e in entries), sum(e.bytes for e in entries)]
    return rows, totals, sum(installed_entries(api, tname) for tname in api.table_names())


def installed_entries(api: Any, table: str) -> int:
    """How many entries `table` holds (a keyless table the API cannot list: 0)."""
    try:
        return len(api.table_entries(table))
    except Exception:     # a table the API cannot list (keyless): count nothing
        return 0
