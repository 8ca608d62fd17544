"""Prefix-independent failover: the two programs, the bulk loader, the controllers, and the
shape of `dataplane scenario pic` at small sizes (flat grows with prefixes, pic and
dataplane do not)."""
from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from dataplane.cli import main
from dataplane.control.bulk_load import action_entry, add_entries, add_lpm, modify_entries
from dataplane.control.switch import ControlPlaneError, Switch
from dataplane.net.core.sim import Simulator
from dataplane.net.devices.controller import ControllerHandle
from dataplane.resources import builtin_program
from dataplane.scenarios.pic import (
    JSON_KEYS,
    MODES,
    S2_MAC,
    S3_MAC,
    build_network,
    run_pic,
    run_pic_sweep,
    sample_indexes,
    scenario_fib,
)
from dataplane.scenarios.pic_controllers import (
    BFD_DETECTION_NS,
    DataplaneController,
    FlatController,
    PicController,
    TimedWrites,
    write_latency_ns,
)
from dataplane.testing.stf_runner import run_stf_file

pytestmark = pytest.mark.simulation      # runs in the PyPy re-run only, when there is one (tests/conftest.py)

DATA = Path(__file__).parent / "data"
STF_DIR = Path(__file__).parent.parent / "stf"
DETECTION = 1_000_000
LATENCY = write_latency_ns(29_000)          # 34,483 ns


# ---- the programs ------------------------------------------------------------------------------

@pytest.mark.parametrize("program", ["pic_failover", "flat_fib"])
def test_program_stf(program):
    """pic_failover: primary while port_status says up, the backup (for every prefix of the
    path) once it says down, ECMP over two primaries; flat_fib: per-prefix next hops."""
    result = run_stf_file(builtin_program(program), DATA / f"{program}.stf")
    assert result.passed, result.report()


def probe(dst: str) -> Ether:
    return Ether(dst="02:00:00:00:01:fe") / IP(src="10.0.0.1", dst=dst) / UDP(sport=1000, dport=7777)


def test_flat_rewrite_moves_each_prefix_separately():
    """In the flat FIB a next-hop change is one rewrite per prefix: a prefix not yet rewritten
    still uses the dead next hop."""
    sw = Switch.from_file(builtin_program("flat_fib"))
    via2 = action_entry(sw, "ipv4_lpm", "set_nhop", {"port": 2, "dmac": S2_MAC})
    via3 = action_entry(sw, "ipv4_lpm", "set_nhop", {"port": 3, "dmac": S3_MAC})
    handles = add_lpm(sw, "ipv4_lpm", [0x10000000, 0x10000100, 0x10000200], 24, via2)
    assert [o.port for o in sw.send(1, probe("16.0.1.9"))] == [2]
    sw.table_modify("ipv4_lpm", handles[0], "set_nhop", {"port": 3, "dmac": S3_MAC})
    modify_entries(sw, "ipv4_lpm", [handles[1]], via3)
    assert [sw.send(1, probe(f"16.0.{i}.9"))[0].port for i in range(3)] == [3, 3, 2]
    out = sw.send_and_dissect(1, probe("16.0.0.9"))[0][1]
    assert out.dst == "02:00:00:00:03:01" and out[IP].ttl == 63


# ---- the bulk loader ------------------------------------------------------------------------------

def test_bulk_entries_are_ordinary_entries():
    sw = Switch.from_file(builtin_program("pic_failover"))
    ids = [action_entry(sw, "ipv4_lpm", "set_path", {"path_id": i}) for i in range(2)]
    handles = add_lpm(sw, "ipv4_lpm", [0x10000000 + (i << 8) for i in range(6)], 24, [ids[i % 2] for i in range(6)])
    assert handles == range(0, 6)
    rows = add_entries(sw, "path", [(0,), (1,)], [action_entry(sw, "path", "use_path", [2, 0xA, 2, 0xA, 3, 0xB])] * 2)
    assert rows == range(0, 2)
    entries = sw.table_entries("ipv4_lpm")
    assert [e.key for e in entries] == [((0x10000000 + (i << 8), 24),) for i in range(6)]
    assert [e.handle for e in entries] == list(range(6)) and [e.args for e in entries] == [(i % 2,) for i in range(6)]
    assert len({id(e) for e in entries}) == 6                       # one value per entry, data shared
    sw.table_delete("ipv4_lpm", 5)
    assert modify_entries(sw, "ipv4_lpm", range(3), ids[1]) == 3
    assert [e.args for e in sw.table_entries("ipv4_lpm")] == [(1,), (1,), (1,), (1,), (0,)]


def test_bulk_loader_errors():
    sw = Switch.from_file(builtin_program("flat_fib"))
    with pytest.raises(ControlPlaneError, match="does not fit in 9 bits"):
        action_entry(sw, "ipv4_lpm", "set_nhop", {"port": 512, "dmac": 1})
    nh = action_entry(sw, "ipv4_lpm", "set_nhop", {"port": 2, "dmac": 1})
    with pytest.raises(ControlPlaneError, match="entry 1: .*already exists"):
        add_lpm(sw, "ipv4_lpm", [0x10000000, 0x10000000], 24, nh)
    with pytest.raises(ControlPlaneError, match="no entry with handle 99"):
        modify_entries(sw, "ipv4_lpm", [99], nh)
    acl = Switch.from_file(STF_DIR / "arch_ternary.p4")
    with pytest.raises(ControlPlaneError, match="exact and lpm keys only"):
        add_entries(acl, "acl", [], [])


def test_timed_writes_keep_the_handle_timing_in_chunks():
    sim = Simulator()
    handle = ControllerHandle(sim, SimpleNamespace(api=None, name="s1"), 100)
    applied = []
    writer = TimedWrites(handle, max_events=3)
    assert writer.issue(10, lambda lo, hi: applied.append((sim.now, lo, hi))) == 1000
    assert writer.issue(2, lambda lo, hi: applied.append((sim.now, lo, hi))) == 1200   # queued behind
    assert handle.writes_issued == 12 and handle.busy_until == 1200
    sim.run()
    assert applied == [(400, 0, 4), (800, 4, 8), (1000, 8, 10), (1100, 0, 1), (1200, 1, 2)]
    assert handle.writes_done == 12 and handle.last_write_ns == 1200


# ---- the controllers on the fabric ------------------------------------------------------------------

def failover(mode: str, controller_cls, prefixes: int = 40, latency: int = 10_000):
    fib = scenario_fib(prefixes, 4)
    net = build_network(mode, DETECTION, latency)
    ctrl = controller_cls(fib)
    handle = net.attach_controller("s1", ctrl, latency)
    ctrl.preload()
    net.set_link("s1:2", "s2:1", up=False, at_ns=100_000)
    net.set_link("s1:2", "s2:1", up=True, at_ns=3_000_000)
    return net, ctrl, handle


def test_flat_controller_rewrites_every_affected_prefix_then_reverts():
    net, ctrl, handle = failover("flat", FlatController)
    api = net.switch("s1").api
    assert {e.args for e in api.table_entries("ipv4_lpm")} == {(2, S2_MAC)}
    net.run(100_000 + DETECTION + 40 * 10_000)
    assert handle.writes_done == 40 and handle.last_write_ns == 100_000 + DETECTION + 40 * 10_000
    assert {e.args for e in api.table_entries("ipv4_lpm")} == {(3, S3_MAC)}
    net.run(10_000_000)
    assert handle.writes_done == 80 and ctrl.stats.writes == 80
    assert {e.args for e in api.table_entries("ipv4_lpm")} == {(2, S2_MAC)}


def test_pic_controller_rewrites_only_the_path_rows():
    net, ctrl, handle = failover("pic", PicController)
    api = net.switch("s1").api
    prefixes_before = [(e.handle, e.args) for e in api.table_entries("ipv4_lpm")]
    assert {e.args for e in api.table_entries("path")} == {(2, S2_MAC, 2, S2_MAC, 2, S2_MAC)}  # no data-plane backup
    net.run(100_000 + DETECTION + 4 * 10_000)
    assert handle.writes_done == 4
    assert {e.args for e in api.table_entries("path")} == {(3, S3_MAC, 3, S3_MAC, 3, S3_MAC)}
    assert [(e.handle, e.args) for e in api.table_entries("ipv4_lpm")] == prefixes_before
    net.run(10_000_000)
    assert handle.writes_done == 8
    assert {e.args for e in api.table_entries("path")} == {(2, S2_MAC, 2, S2_MAC, 2, S2_MAC)}


def test_dataplane_controller_writes_nothing_and_port_status_flips():
    net, ctrl, handle = failover("dataplane", DataplaneController)
    s1 = net.switch("s1")
    assert {e.args for e in s1.api.table_entries("path")} == {(2, S2_MAC, 2, S2_MAC, 3, S3_MAC)}
    net.run(100_000 + DETECTION - 1)
    assert s1.port_status.values[2] == 1
    net.run(100_000 + DETECTION)
    assert s1.port_status.values[2] == 0
    net.run(10_000_000)
    assert s1.port_status.values[2] == 1 and handle.writes_issued == 0 and ctrl.stats.writes == 0


# ---- the scenario's shape at small sizes ------------------------------------------------------------

SMALL, LARGE = 200, 2000
PROBE = 250_000


@pytest.fixture(scope="module")
def sweep():
    rs = run_pic_sweep([SMALL, LARGE], MODES, probe_interval_ns=PROBE)
    return {(r.mode, r.prefixes): r for r in rs}


def test_sample_spans_the_fib():
    assert sample_indexes(2000, 32)[0] == 0 and sample_indexes(2000, 32)[-1] == 1999
    assert len(set(sample_indexes(2000, 32))) == 32 and sample_indexes(5, 32) == [0, 1, 2, 3, 4]


def test_flat_grows_linearly_with_prefixes(sweep):
    small, large = sweep["flat", SMALL], sweep["flat", LARGE]
    assert (small.writes, large.writes) == (SMALL, LARGE)
    for r in (small, large):
        # detection + N / write rate, to within one probe interval (the last-fixed flow's resolution)
        assert r.model_ns - PROBE <= r.convergence_ns <= r.model_ns
    slope = (large.convergence_ns - small.convergence_ns) / (LARGE - SMALL)
    assert slope == pytest.approx(LATENCY, rel=0.02)
    assert small.convergence_ns - slope * SMALL == pytest.approx(DETECTION, abs=PROBE)
    # beyond the detection window every flow shares, loss grows with the prefixes too
    floor = sweep["dataplane", SMALL].lost_packets
    assert large.lost_packets - floor == pytest.approx(10 * (small.lost_packets - floor), rel=0.1)


@pytest.mark.parametrize("mode", ["pic", "dataplane"])
def test_pic_and_dataplane_do_not_grow(sweep, mode):
    small, large = sweep[mode, SMALL], sweep[mode, LARGE]
    assert large.convergence_ns == pytest.approx(small.convergence_ns, rel=0.2)
    assert large.writes == small.writes == (4 if mode == "pic" else 0)   # one write per affected path row
    assert large.lost_packets <= 1.2 * small.lost_packets


def test_flat_is_much_slower_than_pic_at_the_larger_size(sweep):
    assert sweep["flat", LARGE].convergence_ns > 50 * sweep["pic", LARGE].convergence_ns
    assert sweep["pic", LARGE].convergence_ns <= DETECTION + 4 * LATENCY


def test_dataplane_converges_in_the_detection_delay_with_no_writes(sweep):
    for n in (SMALL, LARGE):
        r = sweep["dataplane", n]
        assert r.writes == 0
        # the last packet lost was sent less than one aggregate probe gap before detection
        assert DETECTION - PROBE // r.flows - 5_000 <= r.convergence_ns <= DETECTION
        assert r.lost_packets == pytest.approx(r.flows * DETECTION / PROBE, abs=r.flows)
        assert all(t is not None and t <= DETECTION + PROBE for t in r.recovered_ns)


def test_bfd_detection_sets_the_floor():
    r = run_pic(100, "dataplane", detection_ns=BFD_DETECTION_NS, flows=8)
    assert r.writes == 0 and BFD_DETECTION_NS - 1_000_000 <= r.convergence_ns <= BFD_DETECTION_NS


# ---- the command ---------------------------------------------------------------------------------------

def test_command_json_and_out(tmp_path, plots_drawn):
    runner = CliRunner()
    result = runner.invoke(main, ["scenario", "pic", "--prefixes", "100,1k", "--modes", "flat,dataplane",
                                  "--json", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert list(doc) == ["results"] and len(doc["results"]) == 4
    assert all(tuple(r) == JSON_KEYS for r in doc["results"])
    assert [(r["mode"], r["prefixes"]) for r in doc["results"]] == \
        [("flat", 100), ("dataplane", 100), ("flat", 1000), ("dataplane", 1000)]
    assert doc["results"][2]["writes"] == 1000 and doc["results"][3]["writes"] == 0
    assert json.loads((tmp_path / "pic.json").read_text()) == doc
    assert (tmp_path / "pic.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_command_table_and_bad_arguments():
    runner = CliRunner()
    ok = runner.invoke(main, ["scenario", "pic", "--prefixes", "64", "--modes", "pic", "--detection", "bfd:10us"])
    assert ok.exit_code == 0, ok.output
    assert "convergence" in ok.stdout and "pic" in ok.stdout
    bad = runner.invoke(main, ["scenario", "pic", "--modes", "flat,ecmp"])
    assert bad.exit_code == 2 and "unknown mode(s) ecmp" in bad.output
    bad = runner.invoke(main, ["scenario", "pic", "--prefixes", "ten"])
    assert bad.exit_code == 2 and "--prefixes" in bad.output
