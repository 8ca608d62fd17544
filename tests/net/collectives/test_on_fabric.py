"""Collectives run over the fabric: every rank's result equal to numpy's, bytes conserved, and
a ring that runs at its bound once it has something to pipeline."""
from __future__ import annotations

import numpy as np
import pytest

from dataplane.net.collectives.algorithms import COLLECTIVES, build_plan
from dataplane.net.collectives.comm import Communicator
from dataplane.net.rdma import TransportConfig
from dataplane.scenarios._collective import CollectiveConfig, expected_outputs, rank_inputs, run_size
from dataplane.scenarios.fabric import FabricConfig, build_fabric

pytestmark = pytest.mark.simulation      # runs in the PyPy re-run only, when there is one (tests/conftest.py)

SMALL = FabricConfig(topology="leaf-spine", leaves=2, spines=2, hosts_per_leaf=3)   # 6 hosts, 2 racks


CASES = [("allreduce", "ring"), ("allreduce", "tree"), ("allreduce", "hierarchical"), ("reducescatter", "ring"),
         ("allgather", "ring"), ("alltoall", "pairwise"), ("alltoall", "direct"), ("broadcast", "ring"),
         ("sendrecv", "ring")]


@pytest.mark.parametrize("collective, algorithm", CASES)
def test_every_rank_ends_with_numpys_result_and_bytes_are_conserved(collective, algorithm):
    row = run_size(CollectiveConfig(collective, algorithm, SMALL, channels=2, slice_bytes=4096, root=4), 24 * 1024 + 4)
    assert row["wrong"] == 0 and row["bytes_conserved"]
    assert row["ranks"] == 6 and row["retransmitted"] == 0 and row["drops"] == 0


def test_random_floats_sum_to_numpys_within_float32_rounding():
    """Real float32 data in every order the ring adds it: within float32 rounding of the float64 sum."""
    fabric = build_fabric(SMALL)
    n, count = len(fabric.hosts), 10_000
    plan = build_plan("allreduce", "ring", n, count, slice_bytes=8192)
    rng = np.random.default_rng(7)
    inputs = [rng.standard_normal(count).astype(np.float32) for _ in range(n)]
    buffers = [[x.copy(), np.zeros(count, np.float32)] for x in inputs]
    comm = Communicator(fabric.hosts, keep_data=True)
    comm.submit(plan, buffers=buffers)
    fabric.net.run()
    exact = np.sum(np.array(inputs, dtype=np.float64), axis=0)
    for b, _ in buffers:
        assert np.max(np.abs(b - exact)) <= n * 2.0**-23 * np.max(np.abs(exact)) * 4
        assert np.array_equal(b, buffers[0][0])        # every rank holds the same bits


def test_a_wrong_sum_is_counted_wrong():
    """The check compares with numpy's sum, not with the plan: one element off is one wrong."""
    which, want = expected_outputs("allreduce", 4, 100, 1, 0, 2)
    got = want.copy()
    got[17] += 1
    from dataplane.scenarios._collective import count_wrong

    assert which == 0 and count_wrong(got, want) == 1 and count_wrong(want, want) == 0


def test_inputs_are_whole_numbers_so_any_order_sums_exactly():
    x = rank_inputs("allreduce", 8, 1000, 3, 5)[0]
    assert np.all(x == np.round(x)) and np.max(np.abs(x)) <= 64


def test_a_communicator_runs_collectives_in_order_and_early_messages_wait():
    """Two back-to-back AllReduces: a fast rank's messages of the second arrive while a slow rank
    is still in the first; they wait in its inbox and the results stay exact."""
    fabric = build_fabric(SMALL)
    hosts = fabric.hosts
    n, count = len(hosts), 3000
    comm = Communicator(hosts, keep_data=True)
    first = [rank_inputs("allreduce", n, count, 1, r) for r in range(n)]
    second = [rank_inputs("allreduce", n, count, 2, r) for r in range(n)]
    plan = build_plan("allreduce", "ring", n, count, slice_bytes=4096)
    comm.submit(plan, buffers=first, label="a")
    comm.ranks[3].submit(plan, buffers=second[3], at_ns=200_000, label="b")   # rank 3 starts late
    for r, cr in enumerate(comm.ranks):
        if r != 3:
            cr.submit(plan, buffers=second[r], label="b")
    fabric.net.run()
    assert sum(len(q) for q in comm.ranks[3].inbox.values()) == 0
    assert any(cr.log[1].start_ns < 200_000 for cr in comm.ranks)
    for seed, bufs in ((1, first), (2, second)):
        want = expected_outputs("allreduce", n, count, seed, 0, 0)[1]
        assert all(np.array_equal(b[0], want) for b in bufs)
    assert [rec.label for rec in comm.ranks[0].log] == ["a", "b"]


def test_ring_allreduce_reaches_its_bound_when_it_pipelines():
    row = run_size(CollectiveConfig("allreduce", "ring", FabricConfig(k=4), check_bytes=0), 4 << 20)
    assert row["bound_fraction"] >= 0.95 and row["wrong"] is None and row["bytes_conserved"]


def test_in_network_allreduce_beats_the_ring_on_the_same_fat_tree():
    size = 1 << 19
    ring = run_size(CollectiveConfig("allreduce", "ring", FabricConfig(k=4)), size)
    ina = run_size(CollectiveConfig("allreduce", "ina", FabricConfig(k=4)), size)
    assert ina["wrong"] == 0 and ring["wrong"] == 0
    assert ina["busbw"] > ring["busbw"]
    # both against the same 100G links: ina's bound is its K = 32 frames' share of the line, times 2(n-1)/n
    assert ina["bound_busbw"] == pytest.approx(2 * 15 / 16 * 128 / 206 * 12.5, rel=1e-3)


def test_hosts_of_the_fabric_are_grouped_by_rack():
    fabric = build_fabric(SMALL)
    assert fabric.racks(fabric.hosts) == [[0, 1, 2], [3, 4, 5]]


@pytest.mark.parametrize("collective", list(COLLECTIVES))
def test_one_rank_has_nothing_to_move(collective):
    row = run_size(CollectiveConfig(collective, None, SMALL, gpus=1), 4096)
    assert row["wrong"] == 0 and row["time_us"] == 0


def test_dcqcn_and_no_pfc_still_deliver_exact_results():
    cfg = CollectiveConfig("alltoall", "direct", FabricConfig(topology="leaf-spine", leaves=2, spines=1,
                                                               hosts_per_leaf=3, pfc=False, ecn=True,
                                                               buffer_bytes=60_000),
                           transport=TransportConfig(dcqcn=COLLECTIVES and _dcqcn()))
    row = run_size(cfg, 600_000)
    assert row["wrong"] == 0 and row["bytes_conserved"]


def _dcqcn():
    from dataplane.net.apps.dcqcn_profiles import DEFAULT_PROFILE, get_profile

    return get_profile(DEFAULT_PROFILE).at_rate(100e9).params
