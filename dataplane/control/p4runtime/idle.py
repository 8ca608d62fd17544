"""Idle timeouts (spec section 9.1.3) for tables whose program says ``support_timeout = true``.

The engine time-stamps hits on such tables (``ActionEntry.last_hit_us``); reads report
``time_since_last_hit``. Notifications follow BMv2's ageing monitor (behavioral-model
``src/bm_sim/ageing.cpp``, ``AgeingMonitor::do_sweep``, and ``MatchUnitAbstract_::sweep_entries``
in ``match_units.cpp``), which is what simple_switch_grpc's controllers meet:

* the device sweeps its tables every ``SWEEP_INTERVAL_US`` (BMv2's default ``sweep_interval_ms``
  of 1000, which simple_switch_grpc leaves alone), the first sweep when the pipeline starts;
* at a sweep an entry is expired when ``now_ms - last_hit_ms >= timeout_ms``, in whole
  milliseconds with ``timeout_ms = idle_timeout_ns // 10**6`` (PI's ``set_ttl``), so a
  timeout under 1 ms never expires, as on BMv2;
* an expired entry is notified unless the previous sweep of its table notified it. So an
  entry that stays idle is notified again every second sweep (every 2 s), until it is hit
  or deleted: controllers such as the P4 tutorials' flowcache rely on that repeat (BMv2's own
  test ``NotifyAgain`` in ``targets/simple_switch_grpc/tests/test_idle_timeout.cpp`` pins it).

A sweep's entries go out as one IdleTimeoutNotification, tables in id order: BMv2 sends one
message a table, and PI's ``IdleTimeoutBuffer`` (``proto/frontend/src/idle_timeout_buffer.cpp``)
gathers what arrives within 100 ms into one notification.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from p4.v1 import p4runtime_pb2

from dataplane.control.p4runtime.context import PipelineState
from dataplane.control.p4runtime.table_keys import lookup_table, match_fields

SWEEP_INTERVAL_US = 1_000_000      # BMv2 AgeingMonitor: sweep_interval_ms = 1000u


@dataclass
class Ageing:
    """One pipeline's ageing monitor: when the next sweep is due, and what each table's last
    sweep notified (BMv2's ``prev_sweep_entries``)."""

    next_sweep_us: int
    notified: dict[int, set[int]] = field(default_factory=dict)    # table id -> handles


def installed(state: PipelineState, table_id: int, handle: int, now_us: int) -> None:
    """An entry with an idle timeout was written: its idle time starts now (BMv2 restarts the
    timer when the TTL is set, on insert and on modify)."""
    _, t = lookup_table(state, table_id)
    t.match.get(handle).value.last_hit_us = now_us


def removed(state: PipelineState, table_id: int, handle: int) -> None:
    """An entry was deleted: a later entry given the same handle is a new one (BMv2's handles
    carry a version for that)."""
    ageing = state.ageing
    if ageing is not None:
        ageing.notified.get(table_id, set()).discard(handle)


def idle_ns(value, now_us: int) -> int:
    return max(0, now_us - (value.last_hit_us or 0)) * 1000


def expired(state: PipelineState, now_us: int) -> list[p4runtime_pb2.IdleTimeoutNotification]:
    """The notifications of the sweep due at ``now_us``, if one is (none otherwise). The first
    call starts the sweeps: the poller calls this from the moment the pipeline is committed."""
    ageing = state.ageing
    if ageing is None:
        ageing = state.ageing = Ageing(next_sweep_us=now_us)
    if now_us < ageing.next_sweep_us:
        return []
    # As BMv2's sweep loop: the next sweep is one interval after this one was due, so a late
    # poll does not shift the sweeps, and a stalled clock catches up one sweep at a time.
    ageing.next_sweep_us += SWEEP_INTERVAL_US
    return sweep(state, now_us)


def sweep(state: PipelineState, now_us: int) -> list[p4runtime_pb2.IdleTimeoutNotification]:
    """One sweep of every table at ``now_us`` (see the module docstring)."""
    ageing = state.ageing
    if ageing is None:
        ageing = state.ageing = Ageing(next_sweep_us=now_us + SWEEP_INTERVAL_US)
    now_ms = now_us // 1000
    by_table: dict[int, list[tuple[int, int, object]]] = {}
    for (tid, handle), timeout_ns in list(state.idle_timeouts.items()):
        info, t = lookup_table(state, tid)
        try:
            value = t.match.get(handle).value
        except Exception:
            state.idle_timeouts.pop((tid, handle), None)
            continue
        timeout_ms = timeout_ns // 1_000_000
        if timeout_ms > 0 and now_ms - (value.last_hit_us or 0) // 1000 >= timeout_ms:
            by_table.setdefault(tid, []).append((handle, timeout_ns, value))
    msg = p4runtime_pb2.IdleTimeoutNotification(timestamp=now_us * 1000)
    for tid in sorted(set(by_table) | set(ageing.notified)):
        previous = ageing.notified.get(tid, set())
        fresh = [item for item in by_table.get(tid, []) if item[0] not in previous]
        ageing.notified[tid] = {handle for handle, _, _ in fresh}
        if not fresh:
            continue
        info, t = lookup_table(state, tid)
        for _, timeout_ns, value in fresh:
            e = msg.table_entry.add(table_id=tid, idle_timeout_ns=timeout_ns)
            match_fields(info, value.key, e.match)
            if t.match.uses_priority and value.priority is not None:
                e.priority = value.priority
    return [msg] if msg.table_entry else []
