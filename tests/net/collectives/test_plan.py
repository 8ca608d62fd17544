"""Plans: what each algorithm sends per rank (NCCL's formulas), NCCL's trees, nccl-tests' sizes
and bus-bandwidth factors, slicing."""
from __future__ import annotations

import pytest

from dataplane.net.collectives.algorithms import COLLECTIVES, build_plan
from dataplane.net.collectives.plan import PIPELINE_DEPTH, PlanBuilder, slices, split
from dataplane.net.collectives.tree import btree, dtree

N, COUNT = 8, 8 * 4096          # divisible by every rank count used here
S = COUNT * 4


@pytest.mark.parametrize("channels", [1, 2])
def test_ring_allreduce_sends_two_n_minus_one_over_n_of_the_buffer(channels):
    plan = build_plan("allreduce", "ring", N, COUNT, channels=channels)
    assert all(plan.bytes_sent(r) == 2 * (N - 1) * S // N for r in range(N))
    assert all(plan.bytes_received(r) == 2 * (N - 1) * S // N for r in range(N))


def test_ring_allreduce_moves_every_chunk_two_n_minus_one_times_when_counts_do_not_divide():
    plan = build_plan("allreduce", "ring", 7, 1001, channels=3)
    assert sum(plan.bytes_sent(r) for r in range(7)) == 2 * 6 * 1001 * 4


@pytest.mark.parametrize("collective", ["reducescatter", "allgather", "alltoall"])
def test_one_block_per_rank_collectives_send_n_minus_one_over_n(collective):
    plan = build_plan(collective, COLLECTIVES[collective].algorithms[0], N, COUNT, channels=2)
    assert all(plan.bytes_sent(r) == (N - 1) * S // N for r in range(N))


def test_broadcast_moves_the_buffer_once_down_the_chain():
    plan = build_plan("broadcast", "ring", N, COUNT, root=3)
    sent = [plan.bytes_sent(r) for r in range(N)]
    assert sent[3] == S and sent[2] == 0 and sum(sent) == (N - 1) * S     # rank 2 is last after 3..7, 0, 1
    assert plan.bytes_received(3) == 0


def test_hierarchical_allreduce_crosses_racks_with_a_gth_of_the_data():
    groups = [[0, 1, 2, 3], [4, 5, 6, 7]]
    g, racks = 4, 2
    plan = build_plan("allreduce", "hierarchical", N, COUNT, groups=groups)
    inside = 2 * (g - 1) * S // g
    across = 2 * (racks - 1) * (S // g) // racks
    assert all(plan.bytes_sent(r) == inside + across for r in range(N))
    crossing = sum(n for (a, b), sizes in plan.traffic().items() for n in sizes if (a < 4) != (b < 4))
    assert crossing == N * across


def test_hierarchical_needs_equal_racks():
    with pytest.raises(ValueError, match="same number of ranks"):
        build_plan("allreduce", "hierarchical", 5, 100, groups=[[0, 1, 2], [3, 4]])


def test_nccl_binary_tree_for_eight_ranks():
    """NCCL's ncclGetBtree for 8 ranks: 0 -> 4 -> {2, 6}, 2 -> {1, 3}, 6 -> {5, 7}."""
    want = {0: (-1, [4]), 4: (0, [2, 6]), 2: (4, [1, 3]), 6: (4, [5, 7]),
            1: (2, []), 3: (2, []), 5: (6, []), 7: (6, [])}
    assert {r: btree(8, r) for r in range(8)} == want


@pytest.mark.parametrize("n", [2, 3, 5, 8, 13, 16])
def test_both_trees_span_every_rank_and_inner_nodes_differ(n):
    for t in (0, 1):
        links = {(r, c) for r in range(n) for c in dtree(n, r)[t][1]}
        parents = {(dtree(n, c)[t][0], c) for r in range(n) for c in dtree(n, r)[t][1]}
        assert links == parents and len(links) == n - 1      # a tree: n-1 edges, parent and child agree
    if n % 2 == 0 and n > 2:
        inner = [{r for r in range(n) if dtree(n, r)[t][1]} for t in (0, 1)]
        assert not inner[0] & inner[1]                       # the mirror: inner nodes of one are leaves of the other


@pytest.mark.parametrize("name, factor_8", [("allreduce", 14 / 8), ("reducescatter", 7 / 8), ("allgather", 7 / 8),
                                            ("alltoall", 7 / 8), ("broadcast", 1.0), ("sendrecv", 1.0)])
def test_busbw_factors_are_nccl_tests(name, factor_8):
    """nccl-tests' PERFORMANCE.md: 2(n-1)/n, (n-1)/n, (n-1)/n, (n-1)/n, 1, 1."""
    assert COLLECTIVES[name].busbw(1.0, 8) == pytest.approx(factor_8)


def test_block_collectives_round_the_count_down_to_whole_blocks():
    assert COLLECTIVES["allgather"].count(1000 * 4 + 3, 16) == 992
    assert COLLECTIVES["allreduce"].count(1000 * 4 + 3, 16) == 1000


def test_slices_pipeline_small_chunks_and_cap_large_ones():
    assert slices([(0, 8 * 1024)], 1 << 20) == PIPELINE_DEPTH        # small: 8 slices of one packet
    assert slices([(0, 1024)], 1 << 20) == 1                          # one packet: one slice
    assert slices([(0, 1 << 20)], 1 << 17) == 8                       # large: capped by the slice size
    assert slices([(0, 1 << 22)], 1 << 17) == 32


def test_split_covers_the_region_in_near_equal_pieces():
    parts = split((10, 7), 3)
    assert parts == [(10, 2), (12, 2), (14, 3)]


def test_a_plan_whose_sends_and_receives_disagree_is_refused():
    b = PlanBuilder(2)
    b.send(0, 1, 0, (0, 4))
    b.recv(1, 0, 0, (0, 3), reduce=False)
    with pytest.raises(ValueError, match="differ"):
        b.build()
