"""``--wcmp`` on a k=4 fat-tree (16 hosts, 100G, 2 MiB flows, 96 packets in flight): with
edge1_1-agg1_1 at half rate and the routes weighted by capacity, spraying keeps rack 1's
flows within what its uplinks left allow, where the same spraying on routes unaware of the
rate takes about twice their clean time. On the clean fabric the weights are equal and the
run is ECMP-routed spraying's, figure for figure."""
from __future__ import annotations

import pytest

from dataplane.net.loadbalance.schemes import LbConfig
from dataplane.scenarios._loadbalance_run import LbRun, run_one
from dataplane.scenarios.fabric import FabricConfig

pytestmark = pytest.mark.simulation      # runs in the PyPy re-run only, when there is one (tests/conftest.py)

SIZE = 2 << 20


def run(event: str, wcmp: bool):
    lb = LbConfig("spray", window=96, wcmp=wcmp)
    return run_one(LbRun("permutation", SIZE, FabricConfig(k=4, lb=lb), "sack", event))


@pytest.fixture(scope="module")
def rows():
    return {(event, wcmp): run(event, wcmp) for event, wcmp in
            (("none", False), ("none", True), ("slow", False), ("slow", True))}


def test_weighted_routes_keep_a_slow_uplinks_rack_within_its_capacity(rows):
    """Rack 1 keeps 150G of its 200G each way: its flows need at least 1 / 0.75 = 1.33 times
    their clean time. On weighted routes spraying takes 1.337 (within 1% of that); unaware,
    1.9 times."""
    clean = rows[("none", True)]["completion_us"]
    weighted, unaware = rows[("slow", True)], rows[("slow", False)]
    assert weighted["ideal_fraction"] == 0.9375
    assert weighted["completion_us"] <= clean / 0.75 * 1.01
    assert unaware["completion_us"] >= clean / 0.75 * 1.3
    assert weighted["retransmitted"] == 0 and weighted["pause_frames"] == 0
    assert weighted["lb_detail"].endswith("WCMP routes")


def test_on_the_clean_fabric_weighted_routes_change_nothing(rows):
    plain, weighted = dict(rows[("none", False)]), dict(rows[("none", True)])
    assert weighted.pop("lb_detail") == plain.pop("lb_detail") + ", WCMP routes"
    assert weighted == plain
