"""Routes for the load-balancing programs: failed links leave every group, the schemes that do
not hash get one select per member, and the members table follows the groups."""
from __future__ import annotations

import pytest

from dataplane.net.loadbalance.routes import apportion, reroute, uplinks
from dataplane.net.loadbalance.schemes import MEMBERS_TABLE, LbConfig, member_entries
from dataplane.net.topology.generated import interleave
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


# ---- WCMP: routes weighted by capacity ----------------------------------------------------------------

def _counts(gen, switch, prefix):
    """{peer switch: how many selects lead to it} of ``switch``'s group toward ``prefix`` (a /24)."""
    (lpm,) = [e for e in gen.entries[switch]["table_entries"]
              if e["table"] == "MyIngress.ipv4_lpm" and e["match"]["hdr.ipv4.dstAddr"][0] == prefix]
    assert lpm["action_name"] == "MyIngress.set_ecmp"
    selects = _groups(gen.entries[switch])[lpm["action_params"]["group"]]
    assert sorted(selects) == list(range(lpm["action_params"]["count"]))
    ports = gen.switches[switch].ports
    out: dict[str, int] = {}
    for port in selects.values():
        out[ports[port][0]] = out.get(ports[port][0], 0) + 1
    return out


@pytest.mark.parametrize("make", [lambda: fat_tree(8), lambda: leaf_spine(4, 3, 2)], ids=["fat-tree", "leaf-spine"])
@pytest.mark.parametrize("stride", [True, False])
def test_on_an_even_fabric_weighted_routes_are_ecmps_entry_for_entry(make, stride):
    plain, weighted = make(), make()
    reroute(plain, hash_stride=stride, down=(("edge1_1", "agg1_1"),) if "edge1_1" in plain.switches else ())
    reroute(weighted, hash_stride=stride, down=(("edge1_1", "agg1_1"),) if "edge1_1" in weighted.switches else (),
            weighted=True)
    assert weighted.entries == plain.entries


def test_a_half_rate_link_weighs_every_next_hop_that_leads_through_it():
    """k=8, edge1_1-agg1_1 at 50G. Toward rack 1 (10.1.1.0/24) a source edge of another pod sends
    through its first aggregation switch, whose every way down ends on that link, one select in
    seven, and two through each of the others; the same inside pod 1, and up from edge1_1 itself.
    (Adding up each core's 50G would give that switch 200G, and equal weights: its capacity is
    the maximum flow, 50G, since the four cores meet again at agg1_1.) Toward another rack nothing
    changes, and a switch with one way on has no group to weigh."""
    gen = fat_tree(8)
    reroute(gen, hash_stride=False, weighted=True, slow=(("edge1_1", "agg1_1", 0.5),))
    assert _counts(gen, "edge2_1", "10.1.1.0") == {"agg2_1": 1, "agg2_2": 2, "agg2_3": 2, "agg2_4": 2}
    assert _counts(gen, "edge1_2", "10.1.1.0") == {"agg1_1": 1, "agg1_2": 2, "agg1_3": 2, "agg1_4": 2}
    assert _counts(gen, "edge1_1", "10.2.1.0") == {"agg1_1": 1, "agg1_2": 2, "agg1_3": 2, "agg1_4": 2}
    assert _counts(gen, "edge2_1", "10.3.1.0") == {"agg2_1": 1, "agg2_2": 1, "agg2_3": 1, "agg2_4": 1}
    assert _counts(gen, "agg2_1", "10.1.1.0") == {f"core{i}": 1 for i in range(1, 5)}


def test_weighted_groups_keep_the_hash_stride():
    gen = fat_tree(4)
    reroute(gen, weighted=True, slow=(("edge1_1", "agg1_1", 0.5),))
    assert _counts(gen, "edge1_2", "10.1.1.0") == {"agg1_1": 1, "agg1_2": 2}
    stride = gen.switches["agg2_1"].hash_stride
    assert stride == 2 and _counts(gen, "agg2_1", "10.1.1.0") == {"core1": stride, "core2": stride}


def test_a_slow_link_must_join_two_switches():
    with pytest.raises(ValueError, match="no such link between two switches"):
        reroute(fat_tree(4), weighted=True, slow=(("edge1_1", "core1", 0.5),))


def test_weights_are_the_exact_ratio_up_to_eight_selects_and_the_closest_share_past_it():
    assert apportion([50, 100, 100, 100], 8) == [1, 2, 2, 2]
    assert apportion([100, 100, 100, 500], 8) == [1, 1, 1, 5]                # 8 selects: exact
    assert apportion([100, 100, 100, 600], 8) == [1, 1, 1, 5]                # 9: the closest shares in 8
    assert apportion([75, 100, 100, 100], 16) == [3, 4, 4, 4]
    assert apportion([75, 100, 100, 100], 8) == [1, 1, 1, 1]                 # 0.25 each errs less than 1/7


def test_interleaved_members_take_their_weight_and_never_follow_themselves():
    seq = interleave([5, 6, 7, 8], [1, 2, 2, 2])
    assert sorted(seq) == [5, 6, 6, 7, 7, 8, 8]
    assert all(a != b for a, b in zip(seq, seq[1:] + seq[:1]))
    assert interleave([3, 4], [1, 1]) == [3, 4]
