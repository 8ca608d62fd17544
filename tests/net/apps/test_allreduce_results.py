"""What an ``InaWorker`` makes of the result packets, exactly: each worker's ``result()`` is the
int32 sum of every worker's quantised vector (computed here in Python integers), dequantised,
element for element, and its ``max_abs_error`` is the largest distance of that from the exact
sum; through loss and retransmissions (answers to duplicates included), across blocks and with a
last chunk padded past the end of the vector. The worker copies each result's bytes where they
go and reads them with numpy once a block, so a misplaced chunk, a byte-order or a sign slip, or
a block checked before it is whole shows here."""
from __future__ import annotations

import numpy as np
import pytest

from dataplane.net.apps.allreduce import InaWorker, dequantise, make_scale, quantise
from dataplane.net.apps.allreduce_vectors import BLOCK
from dataplane.scenarios.allreduce import SWITCH_IP, build_network, make_data


@pytest.mark.parametrize("elements, loss", [(BLOCK - 1, 0.0), (BLOCK + 33, 0.03), (2 * BLOCK + 32, 0.0)])
def test_results_are_the_integer_sums_dequantised(elements: int, loss: float) -> None:
    n = 3
    data = make_data(n, elements, seed=11)
    scale = make_scale(n, max(float(np.abs(d).max()) for d in data))
    net = build_network(n, loss=loss, seed=3)
    exact = np.sum([d.astype(np.float64) for d in data], axis=0)
    ws = [InaWorker(net.host(f"h{i + 1}"), i, n, data[i], scale, SWITCH_IP, window=8, timeout_ns=20_000,
                    keep_result=True, expected=exact) for i in range(n)]
    net.run()
    sums = [sum(int(v) for v in col) for col in zip(*(quantise(d, scale).tolist() for d in data))]
    assert all(-2**31 <= s < 2**31 for s in sums)
    want = dequantise(np.array(sums, dtype=np.int64), scale)
    for w in ws:
        assert w.done_ns is not None and not w.saturated
        got = w.result()
        assert got.dtype == np.float32 and len(got) == elements
        assert np.array_equal(got, want)
        assert w.max_abs_error == float(np.max(np.abs(want.astype(np.float64) - exact)))
    if loss:
        assert sum(w.retransmissions for w in ws) > 0


def test_a_short_result_is_refused() -> None:
    """A result carrying fewer than K values is an error, not a shorter block."""
    net = build_network(2)
    w = InaWorker(net.host("h1"), 0, 2, np.ones(64, dtype=np.float32), 1.0, SWITCH_IP, window=2)
    w._start()
    from dataplane.net.apps.allreduce import FLAG_RESULT, HDR
    short = HDR.pack(1, FLAG_RESULT, 0 * 2 + 0, 0, 2, 0, 0) + bytes(4 * 31)
    with pytest.raises(ValueError, match="31 values, not K = 32"):
        w._on_result(0, 0, short, 0, 0)
    full = HDR.pack(1, FLAG_RESULT, 0, 0, 2, 0, 0) + bytes(4 * 32)
    w._on_result(0, 0, full, 0, 0)
    assert w.received == 1
