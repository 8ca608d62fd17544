"""PNA table-entry expiry (dataplane/arch/pna_expiry.py): add-on-miss entries with an expire time
profile, restart_expire_timer and set_entry_expire_time on a hit, AUTO_DELETE and NOTIFY_CONTROL,
on the device clock, with profile times the control plane sets."""
from __future__ import annotations

from pathlib import Path

import pytest

from dataplane.arch.device import ArchitectureError
from dataplane.control.switch import Switch

PROGRAM = Path(__file__).parent / "pna_expiry.p4"
SECOND = 1_000_000   # µs


@pytest.fixture
def sw() -> Switch:
    sw = Switch.from_file(PROGRAM)
    sw.dp.set_expire_time_profile(1, 10)     # profile 1: 10 s
    sw.dp.set_expire_time_profile(2, 100)    # profile 2: 100 s
    return sw


def send(sw: Switch, at_s: float, flow: int, cmd: int = 0) -> int:
    """The port a packet of ``flow`` leaves on at ``at_s`` seconds: 1 on a hit, 2 on a miss."""
    sw.dp.now_us = round(at_s * SECOND)
    [out] = sw.send(0, bytes([flow, cmd]))
    return out.port


def test_an_added_entry_expires_when_its_profile_time_has_passed(sw):
    """Added at t=0 with profile 1 (10 s): still there at 9.999999 s, gone at exactly 10 s (the
    miss adds it again), and a hit does not restart the timer by itself."""
    assert send(sw, 0, 5) == 2
    assert send(sw, 5, 5) == 1
    assert send(sw, 9.999999, 5) == 1
    assert send(sw, 10, 5) == 2            # expired and deleted: the miss re-adds it at t=10
    assert send(sw, 19.999999, 5) == 1
    assert len(sw.table_entries("conn_tbl")) == 1


def test_restart_expire_timer_counts_again_from_the_hit(sw):
    assert send(sw, 0, 5) == 2
    assert send(sw, 8, 5, cmd=1) == 1      # restarted at 8 s: now runs out at 18 s
    assert send(sw, 17.999999, 5) == 1
    assert send(sw, 18, 5) == 2


def test_set_entry_expire_time_moves_the_entry_to_another_profile(sw):
    """set_entry_expire_time(2) at 8 s: 100 s from then, whatever profile 1 says."""
    assert send(sw, 0, 5) == 2
    assert send(sw, 8, 5, cmd=2) == 1
    assert send(sw, 107.999999, 5) == 1
    assert send(sw, 108, 5) == 2


def test_each_entry_keeps_its_own_timer(sw):
    assert send(sw, 0, 5) == 2
    assert send(sw, 4, 6) == 2
    assert send(sw, 10, 6) == 1            # flow 6 added at 4 s: until 14 s
    assert send(sw, 10, 5) == 2            # flow 5 added at 0 s: expired at 10 s


def test_changing_a_profile_time_moves_the_running_timers(sw):
    assert send(sw, 0, 5) == 2
    sw.dp.set_expire_time_profile(1, 3)
    assert send(sw, 2.999999, 5) == 1
    assert send(sw, 3, 5) == 2


def test_a_profile_without_a_time_never_expires_until_configured():
    sw = Switch.from_file(PROGRAM)
    assert send(sw, 0, 5) == 2
    assert send(sw, 10_000, 5) == 1
    sw.dp.set_expire_time_profile(1, 10)   # counts from the entry's start: long run out
    assert send(sw, 10_000, 5) == 2


def test_notify_control_reports_once_and_keeps_the_entry(sw):
    """NOTIFY_CONTROL: the entry stays; the control plane is told (table, key) once per run-out."""
    assert send(sw, 0, 0x80) == 2
    assert sw.dp.sweep_expired() == 0
    sw.dp.now_us = 10 * SECOND
    assert sw.dp.sweep_expired() == 1
    assert sw.dp.expiry.notifications == [("MainControlImpl.notify_tbl", (0x80,))]
    assert send(sw, 11, 0x80) == 1         # still installed, and not reported again
    assert sw.dp.sweep_expired() == 0 and len(sw.dp.expiry.notifications) == 1
    assert send(sw, 12, 0x80, cmd=1) == 1  # restarted: reported again when it runs out
    sw.dp.now_us = 22 * SECOND
    assert sw.dp.sweep_expired() == 1 and len(sw.dp.expiry.notifications) == 2


def test_an_entry_the_control_plane_deleted_is_not_expired_again(sw):
    assert send(sw, 0, 5) == 2
    [entry] = sw.table_entries("conn_tbl")
    sw.table_delete("conn_tbl", entry.handle)
    sw.dp.now_us = 10 * SECOND
    assert sw.dp.sweep_expired() == 0


def test_expiry_calls_outside_a_timed_table_are_refused():
    """set_entry_expire_time / restart_expire_timer only in an action of a table with
    pna_idle_timeout; a profile id is 0..255 and a time not negative."""
    sw = Switch.from_file(PROGRAM)
    sw.table_add("plain_tbl", "hit", ["0x7f"], [])
    with pytest.raises(ArchitectureError, match="restart_expire_timer called in table 'MainControlImpl.plain_tbl'"):
        sw.send(0, bytes([0x7F, 1]))
    for profile, seconds in ((256, 1), (-1, 1), (0, -1), (0, float("nan"))):
        with pytest.raises(ArchitectureError):
            sw.dp.set_expire_time_profile(profile, seconds)
    sw.dp.set_expire_time_profile(255, 0)
