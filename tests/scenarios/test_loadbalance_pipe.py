"""``dataplane scenario loadbalance --window-counts pipe`` (the selective sender's window bounds
the packets not yet acknowledged either way, not the PSN span) on a k=4 fat-tree (16 hosts,
100G, 2 MiB flows, spraying, 96 packets in flight) with edge1_1-agg1_1 at half rate: a packet
waiting at the slow link then holds one slot of its flow's window instead of the whole window,
so the slow link's queue holds what only the pipe allows. Each rule is checked against the same
run counting the span, which must break it; and the option's bad uses are refused."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from dataplane.cli import main
from dataplane.net.loadbalance.schemes import LbConfig

pytestmark = pytest.mark.simulation      # runs in the PyPy re-run only, when there is one (tests/conftest.py)

WINDOW = 96
#: a frame on the wire: 4,096 B of payload in RoCEv2 (BTH, ICRC), UDP, IPv4 and Ethernet headers
#: (4,178 B by the scenario's bisection; rounded up)
FRAME = 4_200


@pytest.fixture(scope="module")
def rows(loadbalance_row):
    return {counts: loadbalance_row("--size", "2MiB", "--lb", "spray", "--window", str(WINDOW), "--event", "slow",
                                    "--window-counts", counts)
            for counts in ("span", "pipe")}


def test_pipe_counting_lets_the_slow_link_hold_more_than_half_of_each_window(rows):
    """Round robin sends every other packet of a flow through its source pod's first
    aggregation switch, and every packet for rack 1 that way down the slow link (or, from rack
    1, up it): counting the span, at most half a window (48 of 96 packets) of each of the two
    flows it carries can wait there, 2 x 48 frames; counting the pipe the packets on the fast
    path are SACKed and leave the window, and the queue holds more than that (545 KB against
    287 KB), still within two whole windows."""
    span, pipe = rows["span"], rows["pipe"]
    half = 2 * (WINDOW // 2 + 1) * FRAME
    assert span["queue_max_bytes"] <= half < pipe["queue_max_bytes"] <= 2 * WINDOW * FRAME
    assert "in the pipe" in pipe["lb_detail"] and "in the pipe" not in span["lb_detail"]


def test_pipe_counting_neither_drops_nor_resends_and_spraying_s_split_still_rules(rows):
    """The span stays within the receiver's reorder window: nothing is dropped, so nothing
    resent. Spraying's split is fixed (half of rack 1's packets on the 50G link), so the pipe
    does not make rack 1's flows faster: the last flow within 2% of the span's (351 us both)."""
    for row in rows.values():
        assert row["retransmitted"] == 0 and row["spurious"] == 0 and row["drops"] == 0
    assert abs(rows["pipe"]["completion_us"] / rows["span"]["completion_us"] - 1) < 0.02


@pytest.mark.parametrize("args, words", [
    (["--window-counts", "pipe", "--receiver", "gbn"], "needs --receiver sack"),
    (["--window-counts", "pipe", "--receiver", "sack,gbn"], "needs --receiver sack"),
    (["--window-counts", "pipe", "--cc", "hpcc"], "needs --receiver sack"),
    (["--window-counts", "bytes"], "'bytes' is not one of 'span', 'pipe'"),
])
def test_bad_window_counts_are_refused_before_any_run(args, words):
    result = CliRunner().invoke(main, ["scenario", "loadbalance", "--k", "4", *args])
    assert result.exit_code == 2 and words in result.output and "--window-counts" in result.output, result.output


def test_the_scheme_settings_check_the_counting():
    with pytest.raises(ValueError, match="the window counts one of span, pipe"):
        LbConfig("spray", window_counts="psn")
    assert LbConfig("spray", window=96, window_counts="pipe").describe().endswith("window 96 packets in the pipe")
    assert LbConfig("spray").window_counts == "span"
