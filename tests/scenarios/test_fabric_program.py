"""A generated fabric runs another built-in program with the generator's routes (``program``):
``int`` gives every switch INT, so a flow across the leaf-spine is reported with its three hops;
ECN marking is ecn.p4's, so asking for it with another program is an error."""
from __future__ import annotations

import pytest

from dataplane.net.apps.basic import UdpFlow
from dataplane.net.apps.int_collector import IntCollector
from dataplane.net.telemetry.int_roles import configure_int
from dataplane.scenarios.fabric import FabricConfig, build_fabric


def test_generated_leaf_spine_runs_int():
    """Every switch of the generated fabric is an INT switch; a flow between racks has 3 hops,
    leaf, spine, leaf, each entering where the last one left."""
    fab = build_fabric(FabricConfig(topology="leaf-spine", leaves=2, spines=2, hosts_per_leaf=2, program="int",
                                    pfc=False, bandwidth="10Gbps", mtu=1500))
    net = fab.net
    deployment = configure_int(net, fab.hosts[0])
    assert sorted(deployment.node_ids) == sorted(net.switches)
    collector = IntCollector(fab.hosts[0], deployment.report_port, node_names=deployment.node_names)
    src, dst = fab.hosts[1], fab.hosts[-1]
    assert fab.rack_of[src.name] != fab.rack_of[dst.name]
    flow = UdpFlow(src, dst.ip, rate_bps=1_000_000_000, size_bytes=500, duration_ns=20_000)
    net.run(200_000)
    data = collector.summary()
    assert data["reports"] == flow.stats["sent"] > 0
    (reported,) = data["flows"]
    names = [h["node"] for h in reported["hops"]]
    assert names[0] == fab.rack_of[src.name] and names[2] == fab.rack_of[dst.name] and names[1].startswith("spine")


def test_ecn_needs_ecn_p4():
    """ecn=True with program="int" is refused before anything is built."""
    with pytest.raises(ValueError, match="programs/ecn.p4"):
        build_fabric(FabricConfig(topology="leaf-spine", leaves=2, spines=2, hosts_per_leaf=2, program="int",
                                  ecn=True))
