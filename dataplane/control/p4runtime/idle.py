"""Idle timeouts (spec section 9.1.3) for tables whose program says ``support_timeout = true``.

The engine time-stamps hits on such tables (``ActionEntry.last_hit_us``); the server's poller
calls ``expired`` and sends an IdleTimeoutNotification for each entry idle longer than its
``idle_timeout_ns``, once, until the entry is hit again. Reads report ``time_since_last_hit``.
"""
from __future__ import annotations

from p4.v1 import p4runtime_pb2

from dataplane.control.p4runtime.context import PipelineState
from dataplane.control.p4runtime.table_keys import lookup_table, match_fields


def installed(state: PipelineState, table_id: int, handle: int, now_us: int) -> None:
    """An entry with an idle timeout was written: its idle time starts now."""
    _, t = lookup_table(state, table_id)
    t.match.get(handle).value.last_hit_us = now_us
    _notified(state).discard((table_id, handle))


def idle_ns(value, now_us: int) -> int:
    return max(0, now_us - (value.last_hit_us or 0)) * 1000


def expired(state: PipelineState, now_us: int) -> list[p4runtime_pb2.IdleTimeoutNotification]:
    """Notifications for entries that went idle since the last call."""
    notified = _notified(state)
    entries = []
    for (tid, handle), timeout in list(state.idle_timeouts.items()):
        info, t = lookup_table(state, tid)
        try:
            value = t.match.get(handle).value
        except Exception:
            state.idle_timeouts.pop((tid, handle), None)
            continue
        key = (tid, handle, value.last_hit_us)
        if idle_ns(value, now_us) < timeout or key in notified:
            continue
        notified.add(key)
        e = p4runtime_pb2.TableEntry(table_id=tid, idle_timeout_ns=timeout)
        match_fields(info, value.key, e.match)
        if t.match.uses_priority and value.priority is not None:
            e.priority = value.priority
        entries.append(e)
    if not entries:
        return []
    msg = p4runtime_pb2.IdleTimeoutNotification(timestamp=now_us * 1000)
    msg.table_entry.extend(entries)
    return [msg]


def _notified(state: PipelineState) -> set:
    """(table, handle, last hit) already reported: a later hit makes the key new again."""
    return state.__dict__.setdefault("idle_notified", set())
