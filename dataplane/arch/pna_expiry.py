"""PNA table-entry expiry: expire time profiles, per-entry timers and what happens when one runs out.

A table whose ``pna_idle_timeout`` property is ``NOTIFY_CONTROL`` or ``AUTO_DELETE`` gives its
entries an expire time profile id (PNA spec, "Table entry timeout"): ``add_entry`` (add-on-miss)
sets the new entry's, and in an action of such a table ``set_entry_expire_time(id)`` sets the
matched entry's and restarts its timer, ``restart_expire_timer()`` restarts it. A hit alone does
not restart it (the spec leaves that to these calls). The time each profile stands for is the
control plane's to configure (``PnaNic.set_expire_time_profile``); until a profile has a time,
entries with it do not expire. Timers run on the device clock (``now_us``: simulated time on a
fabric), and are checked before each packet and whenever ``sweep`` is called: an entry whose
time has run out is deleted (``AUTO_DELETE``) or reported once in ``notifications`` as
``(table, key)`` (``NOTIFY_CONTROL``) until its timer restarts.
"""
from __future__ import annotations

import heapq
import itertools
from typing import Any

from dataplane.engine.table_errors import TableError
from dataplane.ir import expr as E

NO_TIMEOUT, NOTIFY_CONTROL, AUTO_DELETE = "NO_TIMEOUT", "NOTIFY_CONTROL", "AUTO_DELETE"
MAX_PROFILE_ID = 255   # ExpireTimeProfileId_t is bit<8> in PNA's pna.p4


def idle_timeout_mode(table) -> str:
    """The table's ``pna_idle_timeout`` (a ``PNA_IdleTimeout_t`` member's name), NO_TIMEOUT if unset."""
    for name, value in table.properties:
        if name == "pna_idle_timeout" and isinstance(value, E.TypeMember):
            return value.member
    return NO_TIMEOUT


class EntryExpiry:
    """The expire timers of one NIC's entries, in a heap ordered by when each runs out."""

    def __init__(self) -> None:
        self.profiles_us: dict[int, int] = {}          # profile id -> its time, µs
        self.notifications: list[tuple[str, tuple]] = []   # NOTIFY_CONTROL: (table, key), oldest first
        # (deadline µs, seq, table, entry, start µs, profile): a timer is stale once its entry
        # restarted or took another profile (a newer timer is in the heap then)
        self._heap: list[tuple[int, int, Any, Any, int, int]] = []
        self._parked: dict[int, list[tuple[Any, Any]]] = {}  # profile without a time -> (table, entry)
        self._seq = itertools.count()

    @property
    def pending(self) -> bool:
        """Whether any timer is running (the packet path sweeps only then)."""
        return bool(self._heap)

    def set_profile(self, profile_id: int, seconds: float) -> None:
        """Give profile ``profile_id`` its time; entries parked on it start counting from their start."""
        if not isinstance(profile_id, int) or not 0 <= profile_id <= MAX_PROFILE_ID:
            raise ValueError(f"expire time profile id must be 0..{MAX_PROFILE_ID}, not {profile_id!r}")
        if not seconds >= 0:   # also refuses NaN
            raise ValueError(f"expire time must be >= 0 seconds, not {seconds!r}")
        changed = profile_id in self.profiles_us
        self.profiles_us[profile_id] = round(seconds * 1_000_000)
        if changed:   # the running timers of this profile run out at another time now
            self._heap = [(t[4] + self.profiles_us[profile_id], *t[1:]) if t[5] == profile_id else t
                          for t in self._heap]
            heapq.heapify(self._heap)
        for table, entry in self._parked.pop(profile_id, ()):
            self._schedule(table, entry)

    def start(self, table, entry, profile_id: int, now_us: int) -> None:
        """Give ``entry`` a profile and (re)start its timer at ``now_us``."""
        entry.expire_profile = int(profile_id)
        self.restart(table, entry, now_us)

    def restart(self, table, entry, now_us: int) -> None:
        """Restart ``entry``'s timer at ``now_us`` (an entry with no profile has no timer)."""
        if entry.expire_profile is None:
            return
        entry.expire_start_us = now_us
        entry.expire_notified = False
        self._schedule(table, entry)

    def _schedule(self, table, entry) -> None:
        time_us = self.profiles_us.get(entry.expire_profile)
        if time_us is None:
            self._parked.setdefault(entry.expire_profile, []).append((table, entry))
            return
        heapq.heappush(self._heap, (entry.expire_start_us + time_us, next(self._seq), table, entry,
                                    entry.expire_start_us, entry.expire_profile))

    def sweep(self, now_us: int) -> int:
        """Expire every entry whose time has run out by ``now_us``; how many expired."""
        expired = 0
        heap = self._heap
        while heap and heap[0][0] <= now_us:
            _, _, table, entry, start, profile = heapq.heappop(heap)
            if entry.expire_start_us != start or entry.expire_profile != profile or entry.expire_notified:
                continue   # a stale timer, or one reported already
            try:
                installed = table.match.get(entry.handle).value is entry
            except TableError:
                installed = False
            if not installed:
                continue   # deleted by the control plane
            expired += 1
            if table.idle_timeout == AUTO_DELETE:
                table.match.delete(entry.handle)
            else:
                entry.expire_notified = True
                self.notifications.append((table.qualified_name, entry.key))
        return expired

    def clear(self) -> None:
        """Forget every timer (the tables were cleared)."""
        self._heap.clear()
        self._parked.clear()
