"""Symmetric components (``component_entries``): two ports share a component when the same groups
of the switch hold them; a failure splits the groups that share ports with a group that lost one,
and weights alone split nothing."""
from __future__ import annotations

from dataplane.net.loadbalance.routes import reroute
from dataplane.net.loadbalance.schemes import component_entries
from dataplane.net.topology.generators import fat_tree

FAILED = ("edge1_1", "agg1_1")


def _groups(entries):
    out: dict[int, list[int]] = {}
    for e in entries["table_entries"]:
        if e["table"] == "MyIngress.ecmp_nhop":
            out.setdefault(e["match"]["meta.ecmp_group"], []).append(e["action_params"]["port"])
    return out


def _components(gen, switch):
    """group -> {component: the peers its members lead to}, from the switch's entries."""
    ports = gen.switches[switch].ports
    groups = _groups(gen.entries[switch])
    out = {}
    for e in component_entries(gen.entries[switch]["table_entries"]):
        gid = e["match"]["meta.ecmp_group"]
        comps: dict[int, set[str]] = {}
        for i, port in enumerate(groups[gid]):
            comps.setdefault(e["action_params"][f"comp{i}"], set()).add(ports[port][0])
        out[gid] = comps
    return out


def test_an_even_fabric_has_one_component_everywhere():
    gen = fat_tree(8)
    reroute(gen, hash_stride=False)
    assert all(component_entries(gen.entries[s]["table_entries"]) == [] for s in gen.switches)


def test_a_failed_uplink_sets_the_cut_aggregation_switches_uplink_apart_at_every_other_edge():
    """With edge1_1-agg1_1 down, every other edge's routes to rack 1 leave out its uplink to its
    pod's first aggregation switch (whose cores can no longer reach the rack); its groups that
    keep all four uplinks get that one apart, the other three together."""
    gen = fat_tree(8)
    reroute(gen, hash_stride=False, down=(FAILED,))
    for pod in range(2, 9):
        for edge in range(1, 5):
            name = f"edge{pod}_{edge}"
            (comps,) = _components(gen, name).values()
            assert sorted(map(sorted, comps.values())) == [[f"agg{pod}_1"], [f"agg{pod}_{a}" for a in (2, 3, 4)]]
            assert comps[0] == {f"agg{pod}_1"}       # select 0 leads to agg_1: component 0 is its own
    rack1 = [g for g, ports in _groups(gen.entries["edge2_2"]).items() if len(ports) == 3]
    assert rack1 and not any(g in _components(gen, "edge2_2") for g in rack1)    # one component: no entry


def test_weights_alone_split_nothing():
    """WCMP with edge1_1-agg1_1 at half rate: a source edge sends rack 1 one select in seven through
    its first aggregation switch and two through each other, but every group still holds all four
    uplinks: one component."""
    gen = fat_tree(8)
    reroute(gen, hash_stride=False, weighted=True, slow=((*FAILED, 0.5),))
    assert any(len(ports) == 7 for ports in _groups(gen.entries["edge2_2"]).values())
    assert all(component_entries(gen.entries[s]["table_entries"]) == [] for s in gen.switches)


def _entry(group, select, port):
    return {"table": "MyIngress.ecmp_nhop", "match": {"meta.ecmp_group": group, "meta.ecmp_select": select},
            "action_name": "MyIngress.set_nhop", "action_params": {"dmac": 0, "port": port}}


def test_a_component_is_named_by_its_first_select_and_a_port_listed_twice_is_in_one():
    # group 1: ports 5, 6, 5, 6, 6 (weighted); group 2: 5, 6, 7 -> 7 apart in group 2; 5 and 6 held
    # by the same groups whatever their weights; group 1 is one component (no entry)
    table = [_entry(1, s, p) for s, p in enumerate((5, 6, 5, 6, 6))] + [_entry(2, s, p) for s, p in enumerate((7, 5, 6))]
    (comps,) = component_entries(table)
    assert comps["match"] == {"meta.ecmp_group": 2}
    assert [comps["action_params"][f"comp{i}"] for i in range(8)] == [0, 1, 1, 0, 0, 0, 0, 0]
    # a third group holding 6 alone sets 6 apart from 5 in both others
    first, second = component_entries(table + [_entry(3, 0, 6)])
    assert [first["action_params"][f"comp{i}"] for i in range(5)] == [0, 1, 0, 1, 1]
    assert [second["action_params"][f"comp{i}"] for i in range(3)] == [0, 1, 2]
