"""Routes for the load-balancing programs: failed links leave every group, the schemes that do
not hash get one select per member, and the members table follows the groups."""
from __future__ import annotations

import pytest

from dataplane.net.loadbalance.routes import reroute, uplinks
from dataplane.net.loadbalance.schemes import MEMBERS_TABLE, LbConfig, member_entries
from dataplane.net.topology.generators import fat_tree, leaf_spine


def _groups(entries):
    out: dict[int, dict[int, int]] = {}
    for e in entries["table_entries"]:
        if e["table"] == "MyIngress.ecmp_nhop":
            out.setdefault(e["match"]["meta.ecmp_group"], {})[e["match"]["meta.ecmp_select"]] = e["action_params"]["port"]
    return out


def test_a_failed_uplink_leaves_every_group_and_routes_go_around_it():
    gen = fat_tree(4)
    port = next(p for p, (peer, _) in gen.switches["edge1_1"].ports.items() if peer == "agg1_1")
    assert any(port in g.values() for g in _groups(gen.entries["edge1_1"]).values())
    reroute(gen, down=(("edge1_1", "agg1_1"),))
    assert not any(port in g.values() for g in _groups(gen.entries["edge1_1"]).values())
    # agg1_1 reaches edge1_1's hosts (10.1.1.0/24) down through the other edge switch of its pod
    (lpm,) = [e for e in gen.entries["agg1_1"]["table_entries"]
              if e["table"] == "MyIngress.ipv4_lpm" and e["match"]["hdr.ipv4.dstAddr"][0] == "10.1.1.0"]
    agg = gen.switches["agg1_1"]
    if lpm["action_name"] == "MyIngress.set_nhop":
        ports = {lpm["action_params"]["port"]}
    else:
        ports = set(_groups(gen.entries["agg1_1"])[lpm["action_params"]["group"]].values())
    assert {agg.ports[p][0] for p in ports} == {"edge1_2"}


def test_without_the_hash_stride_a_group_has_one_select_per_member():
    gen = fat_tree(4)
    assert gen.switches["agg1_1"].hash_stride == 2
    reroute(gen, hash_stride=False)
    for name in ("agg1_1", "edge1_1"):
        for selects in _groups(gen.entries[name]).values():
            assert sorted(selects) == list(range(len(selects))) and len(set(selects.values())) == len(selects)


def test_only_a_link_between_two_switches_that_exists_can_fail():
    with pytest.raises(ValueError, match="between two switches"):
        reroute(fat_tree(4), down=(("h1", "edge1_1"),))
    with pytest.raises(ValueError, match="no such link"):
        reroute(fat_tree(4), down=(("edge1_1", "core1"),))


def test_uplinks_go_one_tier_up():
    gen = fat_tree(4)
    ups = uplinks(gen)
    assert len(ups) == 16 + 16          # 8 edge switches x 2, 8 aggregation switches x 2
    assert all(gen.switches[gen.switches[s].ports[p][0]].role in ("agg", "core") for s, p in ups)
    assert len(uplinks(leaf_spine(4, 2, 2))) == 8


def test_the_members_table_lists_each_groups_ports_in_select_order():
    gen = leaf_spine(2, 3, 2)
    reroute(gen, hash_stride=False)
    entries = gen.entries["leaf1"]["table_entries"]
    (members,) = member_entries(entries, "leaf1")
    assert members["table"] == MEMBERS_TABLE
    (selects,) = _groups(gen.entries["leaf1"]).values()
    params = members["action_params"]
    assert [params[f"port{i}"] for i in range(3)] == [selects[i] for i in range(3)]
    assert [params[f"port{i}"] for i in range(3, 8)] == [0] * 5


def test_a_group_of_more_than_eight_members_is_refused_for_load_comparison():
    gen = leaf_spine(2, 9, 1)
    reroute(gen, hash_stride=False)
    with pytest.raises(ValueError, match="9 members"):
        member_entries(gen.entries["leaf1"]["table_entries"], "leaf1")


def test_lb_config_refuses_what_the_programs_cannot_do():
    for bad in ({"scheme": "hash"}, {"hash_seed": -1}, {"hash_fields": ("src", "ttl")}, {"flowlet_us": 0},
                {"flowlet_choice": "best"}, {"spray_order": "zigzag"}, {"load_shift": 32}):
        with pytest.raises(ValueError):
            LbConfig(**bad)
    for bad in ({"mark_us": (20, 2)}, {"mark_us": (-1, 5)}, {"window": 0}, {"window": 65537}):
        with pytest.raises(ValueError):
            LbConfig("reps", **bad)


def test_reps_runs_ecmp_with_the_hosts_entropy_and_a_window_only_reps_gets_by_default():
    """reps: ecmp.p4 in the switches (with its hash stride), entropy from the hosts, 96 packets
    in flight unless said; the other schemes have no bound unless given one."""
    reps = LbConfig("reps")
    assert (reps.program, reps.hashes, reps.host_entropy, reps.transport_window) == ("ecmp", True, True, 96)
    assert LbConfig("reps", window=40).transport_window == 40
    for scheme in ("ecmp", "flowlet", "spray", "adaptive"):
        cfg = LbConfig(scheme)
        assert not cfg.host_entropy and cfg.transport_window is None
        assert LbConfig(scheme, window=7).transport_window == 7 and "window 7 packets" in LbConfig(scheme, window=7).describe()
    assert LbConfig("ecmp").hashes and not LbConfig("spray").hashes
