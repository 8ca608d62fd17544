"""Cutting topologies for MPI ranks: balance, whole pods, hosts with their switch, rank pins."""
from __future__ import annotations

import pytest

from dataplane.control.config_errors import ConfigError
from dataplane.net.parallel.partition import PartitionError, partition
from dataplane.net.topology.generators import fat_tree, leaf_spine
from dataplane.net.topology.load import load_topology


def _spec(topo, tmp_path, edit=None):
    path = topo.write(tmp_path)
    if edit is not None:
        path.write_text(edit(path.read_text()))
    return load_topology(path)


def _host_switch(spec):
    return {ls.a[0] if ls.a[0] in spec.hosts else ls.b[0]: ls.b[0] if ls.a[0] in spec.hosts else ls.a[0]
            for ls in spec.links if ls.a[0] in spec.hosts or ls.b[0] in spec.hosts}


def test_leaf_spine_halves_keep_hosts_with_their_leaf(tmp_path):
    spec = _spec(leaf_spine(4, 2, 2), tmp_path)
    part = partition(spec, 2)
    assert part.nodes_per_rank() == [7, 7]
    for host, switch in _host_switch(spec).items():
        assert part.rank_of[host] == part.rank_of[switch]
    assert part.cut_links and all(spec.links[i].a[0] in spec.switches and spec.links[i].b[0] in spec.switches
                                  for i in part.cut_links)
    assert part.lookahead_ns == min(spec.links[i].latency_ns for i in part.cut_links) > 0


@pytest.mark.parametrize("ranks", [2, 4])
def test_fat_tree_keeps_pods_whole(tmp_path, ranks):
    spec = _spec(fat_tree(4), tmp_path)
    part = partition(spec, ranks)
    for pod in range(1, 5):
        members = [n for n in spec.switches if n.startswith((f"edge{pod}_", f"agg{pod}_"))]
        assert len({part.rank_of[n] for n in members}) == 1, members
    counts = part.nodes_per_rank()
    assert max(counts) - min(counts) <= 3            # one edge switch and its hosts
    # Only pod-core links are cut: 2 cores' links to the other half's pods per core.
    assert all(spec.links[i].a[0].startswith("core") or spec.links[i].b[0].startswith("core")
               for i in part.cut_links)


def test_rank_pins_move_a_switch_and_its_hosts(tmp_path):
    spec = _spec(leaf_spine(2, 2, 2), tmp_path)
    free = partition(spec, 2)
    leaf = next(n for n in spec.switches if n.startswith("leaf"))
    want = 1 - free.rank_of[leaf]
    pinned = _spec(leaf_spine(2, 2, 2), tmp_path / "p",
                   lambda text: text.replace(f"    {leaf}: {{kind: switch,", f"    {leaf}: {{kind: switch, rank: {want},"))
    assert pinned.ranks[leaf][0] == want
    part = partition(pinned, 2)
    assert part.rank_of[leaf] == want
    assert all(part.rank_of[h] == want for h, s in _host_switch(pinned).items() if s == leaf)


def test_a_pin_past_the_last_rank_is_a_located_error(tmp_path):
    spec = _spec(leaf_spine(2, 2, 2), tmp_path, lambda text: text.replace("kind: switch,", "kind: switch, rank: 5,", 1))
    with pytest.raises(ConfigError, match=r"rank 5 does not exist in a run on 2 ranks") as err:
        partition(spec, 2)
    assert err.value.line > 0


def test_a_bad_rank_value_is_a_located_error(tmp_path):
    with pytest.raises(ConfigError, match=r"rank: must be a whole number >= 0"):
        _spec(leaf_spine(2, 2, 2), tmp_path, lambda text: text.replace("kind: switch,", "kind: switch, rank: -1,", 1))


def test_zero_latency_links_are_never_cut(tmp_path):
    spec = _spec(leaf_spine(2, 2, 2), tmp_path)
    for ls in spec.links:
        if {ls.a[0], ls.b[0]} <= set(spec.switches):
            ls.latency_ns = 0
    part = partition(spec, 1)
    assert part.cut_links == []
    with pytest.raises(PartitionError, match="at most 1 ranks"):
        partition(spec, 2)


def _pods_split(spec, part, k):
    return [pod for pod in range(1, k + 1)
            if len({part.rank_of[n] for n in spec.switches if n.startswith((f"edge{pod}_", f"agg{pod}_"))}) > 1]


@pytest.mark.parametrize("k, ranks", [(8, 2), (8, 4), (16, 2)])
def test_fat_tree_pods_stay_whole_and_cores_split_evenly(tmp_path, k, ranks):
    """Pods are cut as blocks (what stays connected without the core tier): no pod is split, and
    each rank gets k/ranks pods and (k/2)^2/ranks cores, so only pod-core links are cut. Cutting
    pods instead cuts as many links but sends 8x the frames across (k=16 INA allreduce)."""
    spec = _spec(fat_tree(k), tmp_path)
    part = partition(spec, ranks)
    assert _pods_split(spec, part, k) == []
    cores = [n for n in spec.switches if n.startswith("core")]
    assert len(cores) == (k // 2) ** 2
    assert [sum(part.rank_of[c] == r for c in cores) for r in range(ranks)] == [len(cores) // ranks] * ranks
    per_rank = k // ranks * (k + k * k // 4) + len(cores) // ranks     # pods' switches and hosts, cores
    assert part.nodes_per_rank() == [per_rank] * ranks
    assert all(spec.links[i].a[0] in cores or spec.links[i].b[0] in cores for i in part.cut_links)


def test_whole_pods_give_way_when_they_load_one_rank_more(tmp_path):
    """6 pods of 15 nodes on 4 ranks: whole pods put 2 pods (30 nodes) on a rank, more than cutting
    pods does (99 nodes over 4 ranks), so the plain cut is kept."""
    spec = _spec(fat_tree(6), tmp_path)
    part = partition(spec, 4)
    assert len(spec.switches) + len(spec.hosts) == 99
    assert max(part.nodes_per_rank()) < 2 * 15
    assert _pods_split(spec, part, 6)
