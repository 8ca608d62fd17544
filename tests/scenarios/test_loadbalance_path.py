"""``--lb adaptive --adaptive path`` (CONGA's path feedback, programs/adaptive.p4) on a k=4 fat-tree
(16 hosts, 100G, 2 MiB flows, 96 packets in flight; congestion counted in 16 KiB, as the queues of
this small fabric are shorter than at k=8, where the default 128 KiB is measured): with edge1_1-agg1_1 at half rate, the source
edges learn from the destination edge that the path down through agg1_1 is congested and send
less of rack 1's traffic that way, which no switch-local choice can do. Each rule is checked
against the same run with the feedback heeded by no packet (share 0: the shim, CE and feedback
still flow, nothing acts on them), which must break it; so are those of avoidance (--path-avoid: every
packet passes a member over on a chance the reports build)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from dataplane.cli import main
from dataplane.net.loadbalance.schemes import LbConfig
from dataplane.net.parallel.launch import mpi_available
from dataplane.scenarios import _loadbalance_run
from dataplane.scenarios._loadbalance_run import LbRun, run_one
from dataplane.scenarios.fabric import FabricConfig
from dataplane.testing.processes import stdout_on_ranks

pytestmark = pytest.mark.simulation      # runs in the PyPy re-run only, when there is one (tests/conftest.py)

SIZE = 2 << 20
#: --path-avoid's steps (of 256) up on a congested report, down on a clear one
AVOID = (32, 8)


def run(event: str, **lb):
    """One run's row, and the share of rack 1's inbound bytes that came down the slow link."""
    built = {}
    build = _loadbalance_run.build_fabric

    def keep(cfg, **options):
        built["fabric"] = build(cfg, **options)
        return built["fabric"]

    _loadbalance_run.build_fabric = keep
    try:
        row = run_one(LbRun("permutation", SIZE, FabricConfig(k=4, lb=LbConfig("adaptive", window=96, **lb)),
                            "sack", event))
    finally:
        _loadbalance_run.build_fabric = build
    net = built["fabric"].net

    def sent(a: str, b: str) -> int:
        return next(p.stats.tx_bytes for p in net.switch(a).ports.values()
                    if p.peer is not None and p.peer.node.name == b)

    slow, fast = sent("agg1_1", "edge1_1"), sent("agg1_2", "edge1_1")
    return row, slow / (slow + fast)


@pytest.fixture(scope="module")
def rows():
    return {
        ("local", "none"): run("none"),
        ("path", "none"): run("none", adaptive_mode="path", path_shift=14),
        ("path", "slow"): run("slow", adaptive_mode="path", path_shift=14),
        ("blind", "none"): run("none", adaptive_mode="path", path_shift=14, path_share=0),
        ("blind", "slow"): run("slow", adaptive_mode="path", path_shift=14, path_share=0),
        ("avoid", "none"): run("none", adaptive_mode="path", path_shift=14, path_avoid=AVOID),
        ("avoid", "slow"): run("slow", adaptive_mode="path", path_shift=14, path_avoid=AVOID),
    }


def test_path_feedback_sends_less_of_a_rack_down_its_slow_link(rows):
    """Rack 1 has 100G down through agg1_2 and 50G through agg1_1: a third of its bytes should come
    the slow way. Switch-local choices split them evenly (the choice is made at the source edge,
    three hops before the slow link); with the feedback the slow share falls well below half."""
    (_, path_share), (_, blind_share) = rows[("path", "slow")], rows[("blind", "slow")]
    assert blind_share >= 0.48
    assert path_share <= 0.44
    assert path_share >= 1 / 3 - 0.02           # not past the ideal: it still uses the slow link


def test_path_feedback_finishes_the_slow_racks_flows_sooner_and_keeps_more_goodput(rows):
    """Kept goodput (event over clean) no lower than without the feedback, and the last flow (one
    into rack 1) at least 10% sooner."""
    path, blind = rows[("path", "slow")][0], rows[("blind", "slow")][0]
    kept = path["goodput_gbps"] / rows[("path", "none")][0]["goodput_gbps"]
    kept_blind = blind["goodput_gbps"] / rows[("blind", "none")][0]["goodput_gbps"]
    assert kept >= kept_blind
    assert path["completion_us"] <= 0.9 * blind["completion_us"]


def test_the_clean_fabric_is_where_local_adaptive_routing_left_it(rows):
    """No congestion, no remote metric: the clean goodput is local adaptive routing's (the 8-byte
    shim on the fabric's links costs 0.2% of line time at most)."""
    local, path = rows[("local", "none")][0], rows[("path", "none")][0]
    assert path["goodput_gbps"] >= 0.995 * local["goodput_gbps"]
    assert path["lb_detail"].startswith("adaptive (least-loaded path")


def test_avoidance_sends_the_slow_link_near_its_part_of_the_capacity(rows):
    """With avoidance (every packet passes a member over on the chance the reports built) the
    slow link's share of rack 1's bytes comes near the ideal third, closer than a share heeding
    the metrics does; with the feedback heeded by no packet it stays at half. Rack 1's last flow
    then ends at least 10% sooner than without the feedback."""
    (avoid, avoid_share), (blind, blind_share) = rows[("avoid", "slow")], rows[("blind", "slow")]
    assert avoid_share <= 0.37 < rows[("path", "slow")][1]
    assert avoid_share >= 1 / 3 - 0.02
    assert blind_share >= 0.48
    assert avoid["completion_us"] <= 0.9 * blind["completion_us"]
    assert avoid["lb_detail"].startswith("adaptive (least-loaded path: local port first, then members passed over")


def test_avoidance_leaves_the_clean_fabric_alone(rows):
    """On the clean fabric the queues stay short of the quantum, no member is passed over, and
    the goodput is local adaptive routing's (within the shim's 0.2%)."""
    assert rows[("avoid", "none")][0]["goodput_gbps"] >= 0.995 * rows[("local", "none")][0]["goodput_gbps"]


@pytest.mark.no_pypy
@pytest.mark.ranks
def test_path_mode_results_are_identical_on_one_and_two_ranks():
    """The registers the feedback fills live in the switches, wherever their rank runs them: the
    results do not depend on how the fabric is split."""
    if not mpi_available() or subprocess.run([sys.executable, "-c", "from mpi4py import MPI"],
                                             capture_output=True).returncode != 0:
        pytest.skip("needs MPI (mpiexec) and mpi4py")
    args = ["scenario", "loadbalance", "--lb", "adaptive", "--adaptive", "path", "--path-quantum", "16KiB",
            "--window", "96", "--event", "slow", "--size", "256KiB", "--json"]
    outs = stdout_on_ranks(*args)
    assert outs[0] == outs[1] and json.loads(outs[0])["results"][0]["lb_detail"].startswith("adaptive (least-loaded path")


@pytest.mark.parametrize("args, words", [
    (["--path-quantum", "8KiB"], "from --quantum"),
    (["--path-quantum", "96KiB"], "power of two"),
    (["--path-share", "257"], "0<=x<=256"),
    (["--adaptive", "global"], "'local', 'path'"),
    (["--path-avoid", "32"], "two steps"),
    (["--path-avoid", "0,8"], "each step 1..256"),
    (["--path-avoid", "32,257"], "each step 1..256"),
])
def test_bad_path_options_get_a_clear_error(args, words):
    """A path quantum finer than the load quantum (16 KiB) or not a power of two, a share past 256,
    an unknown mode and avoidance steps that are not two numbers in 1..256 are refused before
    anything runs."""
    result = CliRunner().invoke(main, ["scenario", "loadbalance", "--lb", "adaptive", *args])
    assert result.exit_code == 2 and words in result.output, result.output
