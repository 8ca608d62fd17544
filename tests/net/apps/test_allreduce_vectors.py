"""Allreduce input vectors made block by block (allreduce_vectors) and the lean InaWorker that
holds only the blocks it sends from and checks each block's result as it completes."""
from __future__ import annotations

import numpy as np

from dataplane.net.apps.allreduce import InaWorker, make_scale, quantisation_bound
from dataplane.net.apps.allreduce_vectors import BLOCK, ArrayVectors, SeededVectors, reference


def test_blocks_asked_for_in_any_order_are_the_pieces_of_one_stream_a_worker():
    n = 3 * BLOCK + 100
    whole = np.random.default_rng((4, 1)).standard_normal(n, dtype=np.float32)
    v = SeededVectors(3, n, seed=4)
    assert np.array_equal(v.vector(1), whole)
    again = SeededVectors(3, n, seed=4)
    for b in (0, 2, 1, 3, 1):                 # ahead (1 waits), then from it, then behind (a restart)
        assert np.array_equal(again.block(1, b), whole[b * BLOCK:(b + 1) * BLOCK])
    assert not np.array_equal(v.block(0, 0), v.block(1, 0))


def test_reference_is_the_float64_sum_and_the_largest_magnitude():
    arrays = [np.array([1.5, -4.0, 2.0], dtype=np.float32), np.array([0.25, 3.0, -1.0], dtype=np.float32)]
    exact, max_abs = reference(ArrayVectors(arrays))
    assert exact.tolist() == [1.75, -1.0, 1.0] and max_abs == 4.0


def test_lean_worker_checks_each_block_as_the_whole_result_would_and_keeps_none():
    from dataplane.scenarios.allreduce import SWITCH_IP, build_network
    n, size = 3, BLOCK + 1000                       # a partial last block and a partial last chunk
    vectors = SeededVectors(n, size, seed=6)
    exact, max_abs = reference(vectors)
    scale = make_scale(n, max_abs)
    net = build_network(n, loss=0.02, seed=7)
    ws = [InaWorker(net.host(f"h{i + 1}"), i, n, vectors.of(i), scale, SWITCH_IP, window=200, timeout_ns=20_000,
                    expected=exact, keep_result=(i == 0)) for i in range(n)]
    net.run()
    whole = float(np.max(np.abs(ws[0].result().astype(np.float64) - exact)))
    assert len(ws[0].result()) == size
    assert 0 < whole <= quantisation_bound(n, scale, float(np.abs(exact).max()))
    for w in ws:
        assert w.done_ns is not None and w.max_abs_error == whole
        assert not w._payload and not w._result       # every block let go


def test_a_block_from_anywhere_is_drawn_again_from_its_start_once_the_stream_has_passed_it():
    n = 3 * BLOCK + 100
    whole = np.random.default_rng((4, 1)).standard_normal(n, dtype=np.float32)
    v = SeededVectors(3, n, seed=4)
    reference(v)                              # the first time through: every block's start noted
    for b in (2, 0, 3, 1, 1):                 # the ring's order: a segment from the middle first
        assert np.array_equal(v.block(1, b), whole[b * BLOCK:(b + 1) * BLOCK])
        assert not v._ahead                   # nothing drawn on the way, nothing held


def test_lean_ring_worker_checks_each_block_as_the_whole_result_would_and_keeps_few():
    from dataplane.net.apps.allreduce import RingWorker
    from dataplane.scenarios.allreduce import build_network, host_ip
    n, size = 3, 3 * BLOCK + 1000                   # segments across blocks, a partial last block
    vectors = SeededVectors(n, size, seed=6)
    exact, max_abs = reference(vectors)
    net = build_network(n, seed=7)
    ws = [RingWorker(net.host(f"h{i + 1}"), i, n, vectors.of(i), host_ip((i + 1) % n + 1), 10_000_000_000,
                     exact=exact, keep_result=(i == 0)) for i in range(n)]
    net.run()
    whole = float(np.max(np.abs(ws[0].result().astype(np.float64) - exact)))
    assert len(ws[0].result()) == size and 0 < whole <= n * float(np.abs(exact).max()) * 2.0**-23
    for w in ws:
        assert w.done_ns is not None and w.max_abs_error == whole
        assert len(w._own) <= RingWorker._BLOCKS_IN_USE and all(f is None for f in w._final)   # all let go
    assert not vectors._ahead


def test_block_starts_take_three_64_bit_words_a_block_and_restore_the_buffered_half_draw():
    """The generator's state at each block start is kept as 24 bytes (its 128-bit PCG64 state,
    and has_uint32 with the buffered 32 bits float32 draws leave), one array a worker; blocks
    drawn again from starts with and without a buffered half are the stream's."""
    n = 12 * BLOCK
    whole = np.random.default_rng((5, 2)).standard_normal(n, dtype=np.float32)
    v = SeededVectors(3, n, seed=5)
    reference(v)
    starts = v._starts[2]
    assert starts.itemsize == 8 and len(starts) == 3 * 12
    buffered = [b for b in range(12) if starts[3 * b + 2] >> 32]
    assert buffered and len(buffered) < 12           # both kinds of start occur
    for b in [*reversed(buffered), *(b for b in range(12) if b not in buffered)]:
        assert np.array_equal(v.block(2, b), whole[b * BLOCK:(b + 1) * BLOCK])
