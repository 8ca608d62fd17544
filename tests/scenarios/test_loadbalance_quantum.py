"""Adaptive routing's quantum (``--quantum``): loads are compared in whole quanta, and where they
compare equal the packet takes the member in turn, each flow's own round, which is spraying's
rule. So a quantum no backlog reaches makes adaptive routing spraying, figure for figure, and a
fine one leaves the round where a port falls behind (k=4 fat-tree, 256 KiB flows, 96 packets in
flight, ACKs served first, edge1_1's first uplink at half rate; docs/loadbalance.md, "A coarse
quantum")."""
from __future__ import annotations

import json

import pytest

from dataplane.net.loadbalance.schemes import LbConfig
from dataplane.scenarios._loadbalance_run import LbRun, run_one
from dataplane.scenarios.fabric import FabricConfig

pytestmark = pytest.mark.simulation      # runs in the PyPy re-run only, when there is one (tests/conftest.py)

NAMES = ("lb", "lb_detail")              # what says which program ran, not what it did


def run(scheme: str, shift: int):
    lb = LbConfig(scheme, window=96, ack_priority=True, load_shift=shift, path_shift=max(17, shift))
    return run_one(LbRun("permutation", 256 << 10, FabricConfig(k=4, lb=lb), "sack", "slow"))


@pytest.fixture(scope="module")
def rows():
    # 2^31 B: past any backlog the 32-bit register can hold; 2^14 B: the default 16 KiB
    return {"spray": run("spray", 14), "coarse": run("adaptive", 31), "fine": run("adaptive", 14)}


def figures(row: dict) -> dict:
    return {k: v for k, v in row.items() if k not in NAMES}


def test_a_quantum_no_backlog_reaches_makes_adaptive_routing_spraying(rows):
    assert rows["coarse"]["lb"] == "adaptive" and "2147483648 B quantum" in rows["coarse"]["lb_detail"]
    assert figures(rows["coarse"]) == figures(rows["spray"])


def test_a_fine_quantum_leaves_the_round_where_the_slow_uplink_falls_behind(rows):
    """Measured: 66.4% of the bisection against spraying's 65.1%; the busiest uplink 64% busy
    against 84% (spraying gives the half-rate link its quarter)."""
    fine, spray = rows["fine"], rows["spray"]
    assert fine["goodput_gbps"] > spray["goodput_gbps"]
    assert fine["uplink_max"] < spray["uplink_max"]
    assert fine["retransmitted"] == spray["retransmitted"] == 0


def test_a_coarse_quantum_needs_no_path_quantum_but_a_finer_one_given_is_refused():
    from click.testing import CliRunner

    from dataplane.cli import main

    small = ["scenario", "loadbalance", "--topology", "leaf-spine", "--leaves", "2", "--spines", "2",
             "--hosts-per-leaf", "2", "--size", "64KiB", "--event", "none", "--lb", "adaptive"]
    result = CliRunner().invoke(main, small + ["--quantum", "256KiB", "--json"])
    assert result.exit_code == 0, result.output
    assert "262144 B quantum" in json.loads(result.output)["results"][0]["lb_detail"]
    result = CliRunner().invoke(main, small + ["--quantum", "256KiB", "--path-quantum", "128KiB"])
    assert result.exit_code == 2 and "--path-quantum" in result.output and "Traceback" not in result.output
