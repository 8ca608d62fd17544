"""``dataplane scenario loadbalance`` on a k=4 fat-tree (16 hosts, 100G, 1 MiB flows): the order of
the schemes docs/loadbalance.md measures at k=8, what an uplink down or slow costs, and what
reordering costs each receiver."""
from __future__ import annotations

import json
import subprocess
import sys
from functools import lru_cache

import pytest
from click.testing import CliRunner

from dataplane.cli import main
from dataplane.net.loadbalance.schemes import LbConfig
from dataplane.net.parallel.launch import mpi_available
from dataplane.scenarios._loadbalance_run import LbRun, run_one
from dataplane.scenarios.fabric import FabricConfig
from dataplane.testing.processes import stdout_on_ranks

pytestmark = pytest.mark.simulation      # runs in the PyPy re-run only, when there is one (tests/conftest.py)

MIB = 1 << 20


def run(scheme: str, event: str = "none", receiver: str = "sack", workload: str = "permutation", size: int = MIB,
        **lb):
    return run_one(LbRun(workload, size, FabricConfig(k=4, lb=LbConfig(scheme, **lb)), receiver, event))


@pytest.fixture(scope="module")
def rows():
    out = {(s, "none", "sack"): run(s) for s in ("ecmp", "flowlet", "spray", "adaptive")}
    out["ecmp seed 1"] = run("ecmp", hash_seed=1)
    out[("spray", "none", "gbn")] = run("spray", receiver="gbn")
    for event in ("down", "slow"):
        for s in ("spray", "adaptive"):
            out[(s, event, "sack")] = run(s, event)
    return out


def test_spraying_and_adaptive_routing_reach_the_bisection_where_hashing_and_flowlets_collide(rows):
    """The order measured at k=8 (docs/loadbalance.md): spray and adaptive at 90% of the bisection
    or more, the uplinks evenly loaded; ECMP and LetFlow's flowlets (line-rate flows have no
    gaps, so a flowlet is its flow's first random choice) well below, two flows on one uplink."""
    got = {s: rows[(s, "none", "sack")] for s in ("ecmp", "flowlet", "spray", "adaptive")}
    assert got["spray"]["goodput_fraction"] >= 0.9 and got["adaptive"]["goodput_fraction"] >= 0.9
    assert max(got["ecmp"]["goodput_fraction"], got["flowlet"]["goodput_fraction"]) <= 0.7
    assert got["spray"]["uplink_spread"] <= 1.2 and min(got["ecmp"]["uplink_spread"], got["flowlet"]["uplink_spread"]) >= 2
    # the slowest flow shares an uplink: about twice the time of the slowest sprayed one
    assert got["ecmp"]["completion_us"] >= 1.8 * got["spray"]["completion_us"]
    assert all(r["ideal_fraction"] == 1.0 for r in got.values())


def test_ecmp_is_reported_with_its_hash_seed_and_another_seed_draws_other_collisions(rows):
    seed0, seed1 = rows[("ecmp", "none", "sack")], rows["ecmp seed 1"]
    assert (seed0["hash_seed"], seed1["hash_seed"]) == (0, 1)
    assert seed0["goodput_fraction"] != seed1["goodput_fraction"]
    assert rows[("spray", "none", "sack")]["hash_seed"] is None


def test_sprayed_packets_arrive_out_of_order_yet_nothing_is_resent_with_sack(rows):
    """The sack receiver places what spraying reorders: no retransmission at all, so none
    spurious. The go-back-N receiver NAKs every overtaken packet and the sender resends what had
    arrived: more than half the goodput gone."""
    sack, gbn = rows[("spray", "none", "sack")], rows[("spray", "none", "gbn")]
    assert sack["reordered"] > 0 and sack["retransmitted"] == sack["spurious"] == sack["timeouts"] == 0
    assert gbn["retransmitted"] > 0 and gbn["reordered"] > sack["reordered"]
    assert gbn["goodput_fraction"] < sack["goodput_fraction"] / 2


def test_an_uplink_down_or_slow_leaves_its_rack_what_the_other_uplink_carries(rows):
    """k=4: edge1_1 has two uplinks for its two hosts' flows out and in. Down: 100G for four flows
    of 100G that need one, so the ideal keeps (12 + 4 x 0.5) / 16 = 87.5%; slow (50G):
    (12 + 4 x 0.75) / 16 = 93.75%. Spraying over what is left: those flows take about twice as
    long, and no longer than half the rack's uplinks allow (at k=8, 926 us against 701 / 0.75)."""
    for s in ("spray", "adaptive"):
        assert rows[(s, "down", "sack")]["ideal_fraction"] == 0.875
        assert rows[(s, "slow", "sack")]["ideal_fraction"] == 0.9375
    clean, down = rows[("spray", "none", "sack")], rows[("spray", "down", "sack")]
    assert 1.8 <= down["completion_us"] / clean["completion_us"] <= 2.0
    assert down["goodput_fraction"] < clean["goodput_fraction"]


def test_adaptive_routing_moves_load_off_a_slow_uplink_that_spraying_fills(rows):
    spray, adaptive = rows[("spray", "slow", "sack")], rows[("adaptive", "slow", "sack")]
    assert spray["uplink_max"] >= 0.9 and adaptive["uplink_max"] <= spray["uplink_max"] - 0.1


def test_collectives_and_all_to_all_run_and_spraying_beats_hashing():
    """AlltoAll of 1 MiB as a collective (nccl-tests' size) and as flows: both finish, and spraying
    is closer to the ideal than ECMP."""
    for workload in ("alltoall", "all-to-all"):
        ecmp, spray = (run(s, workload=workload) for s in ("ecmp", "spray"))
        assert 0 < ecmp["goodput_fraction"] < spray["goodput_fraction"] <= 1.0, workload
        assert spray["spurious"] == 0


def test_the_command_prints_its_table_and_json():
    args = ["scenario", "loadbalance", "--lb", "ecmp,spray", "--event", "none", "--size", "256KiB"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "permutation   none  ecmp" in result.output and "of bis." in result.output
    result = CliRunner().invoke(main, [*args, "--json", "--receiver", "gbn,sack"])
    payload = json.loads(result.output)
    assert [(r["lb"], r["receiver"]) for r in payload["results"]] == \
        [("ecmp", "gbn"), ("ecmp", "sack"), ("spray", "gbn"), ("spray", "sack")]


@pytest.mark.parametrize("args, words", [
    (["--lb", "ecmp,hula"], "hula: choose from ecmp"),
    (["--event", "flap"], "choose from none, down, slow"),
    (["--quantum", "3000"], "a power of two"),
    (["--event", "down", "--event-link", "edge1_1,core1"], "no such link"),
    (["--event", "slow", "--event-link", "edge1_1"], "two switches"),
    (["--k", "5"], "k must be even"),
    (["--size", "lots"], "cannot read"),
    (["--mark-us", "20,2"], "0 <= KMIN < KMAX"),
    (["--mark-us", "fast"], "two whole microseconds"),
    (["--lb", "reps", "--receiver", "gbn"], "selective receiver"),
    (["--wcmp", "--cc", "hpcc"], "the weighted ones are the load-balancing programs'"),
    (["--wcmp", "--event", "slow", "--event-link", "edge1_1,core1"], "no such link between two switches"),
])
def test_bad_options_get_a_clear_error(args, words):
    result = CliRunner().invoke(main, ["scenario", "loadbalance", "--size", "64KiB", *args])
    assert result.exit_code == 2 and words in result.output and "Traceback" not in result.output


@lru_cache(maxsize=1)
def _mpi_works() -> bool:
    if not mpi_available():
        return False
    return subprocess.run([sys.executable, "-c", "from mpi4py import MPI"], capture_output=True).returncode == 0


@pytest.mark.no_pypy
@pytest.mark.ranks
def test_the_results_are_identical_on_one_and_two_ranks():
    if not _mpi_works():
        pytest.skip("needs MPI (mpiexec) and mpi4py")
    args = ["scenario", "loadbalance", "--lb", "ecmp,flowlet,spray,adaptive,reps", "--event", "none,down",
            "--size", "256KiB", "--json"]
    outs = stdout_on_ranks(*args)
    assert outs[0] == outs[1] and json.loads(outs[0])["results"][0]["reordered"] == 0
