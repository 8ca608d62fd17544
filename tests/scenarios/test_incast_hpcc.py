"""`scenario incast --cc hpcc` at a small size: the INT records hpcc.p4 switches write, hop by
hop, against the fabric's own clock, byte counters, link rates and queue; the receiver's ACK
carries them back unchanged; and the run's results (no loss, a lower queue and a higher
utilisation than DCQCN in the same configuration, a lone flow's FCT slowdown near 1)."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from dataplane.cli import main
from dataplane.net.core.units import parse_time
from dataplane.net.rdma import hpcc_flow
from dataplane.net.rdma.hpcc import QLEN_UNIT, TX_UNIT, parse_int_header
from dataplane.net.rdma.hpcc_flow import HpccReceiver, HpccSender, hpcc_frame_len
from dataplane.scenarios.incast import IncastConfig, run_incast

BTH = 12


@pytest.fixture
def recorded(monkeypatch):
    """Every data packet's records as the receiver got them (with its arrival time) and every
    ACK's records as its sender got them, by PSN."""
    data: dict[int, tuple[int, list]] = {}
    acks: dict[int, list] = {}
    recv, send = HpccReceiver.on_data, HpccSender.on_data

    def on_data(self, src_ip, src_port, psn, payload, tos, time_ns):
        data[(src_port, psn)] = (time_ns, parse_int_header(payload, BTH))
        return recv(self, src_ip, src_port, psn, payload, tos, time_ns)

    def on_ack(self, src_ip, src_port, psn, payload, tos, time_ns):
        acks[(self.qpn, psn)] = parse_int_header(payload, BTH + 4)
        return send(self, src_ip, src_port, psn, payload, tos, time_ns)

    monkeypatch.setattr(HpccReceiver, "on_data", on_data)
    monkeypatch.setattr(HpccSender, "on_data", on_ack)
    return data, acks


def test_int_records_hop_by_hop_match_the_fabric_and_come_back_in_the_ack(recorded):
    data, acks = recorded
    cfg = IncastConfig(senders=1, mode="ecn", cc="hpcc", transfer_bytes=400_000)
    run = run_incast(cfg, keep_net=True)
    assert run is not None
    net = run.net
    frame = hpcc_frame_len(cfg.payload_bytes)
    assert len(data) == len(acks) == -(-cfg.transfer_bytes // cfg.payload_bytes)
    # the ACK echoes the records the data packet arrived with, hop by hop
    assert all(acks[k] == data[k][1] for k in data)
    bottleneck = net.switch("leaf1").ports[1]
    latency = parse_time(cfg.latency)
    for (_, psn), (arrived, hops) in sorted(data.items()):
        assert [h.rate_bps for h in hops] == [400e9, 400e9, 100e9]   # leaf2 up, spine down, leaf1 to h1
        last = hops[-1]
        size = hpcc_frame_len(min(cfg.payload_bytes, cfg.transfer_bytes - psn * cfg.payload_bytes))
        # leaf1's record: the packet left its queue one 100G frame time and one link latency
        # before it reached the receiver
        assert arrived - last.ts == pytest.approx(bottleneck.link.wire_bytes(size) * 8 / 100 + latency, abs=1)
        # ... after the psn frames of this flow before it (the only traffic on that port)
        assert last.tx == (psn * frame) // TX_UNIT * TX_UNIT
        # one hop to the next: a 400G frame time and a link latency (no queue behind one sender;
        # the short last packet waits at leaf1 for the one before it to finish, so not that one)
        for a, b in zip(hops, hops[1:] if size == frame else ()):
            assert b.ts_delta(a) == pytest.approx(bottleneck.link.wire_bytes(size) * 8 / 400 + latency, abs=1)
    assert bottleneck.stats.tx_bytes == hpcc_frame_len(cfg.transfer_bytes % cfg.payload_bytes) + (len(data) - 1) * frame
    assert run.result["drops"] == 0 and run.result["fct_slowdown_max"] == pytest.approx(1.0, abs=0.1)


def test_queue_records_follow_the_bottleneck_queue(recorded):
    """Two senders queue at leaf1's port to the receiver: the largest queue a record reports
    is the sampled maximum within a frame and a unit, and never above it."""
    data, _ = recorded
    cfg = IncastConfig(senders=2, mode="ecn", cc="hpcc", transfer_bytes=400_000, sample_ns=100)
    r = run_incast(cfg).result
    qmax = max(hops[-1].qlen for _, hops in data.values())
    frame = hpcc_frame_len(cfg.payload_bytes)
    assert 0 < r["qdepth_max_bytes"] - frame - QLEN_UNIT <= qmax <= r["qdepth_max_bytes"]


@pytest.fixture(scope="module")
def both():
    res = CliRunner().invoke(main, ["scenario", "incast", "--senders", "4", "--mode", "ecn", "--transfer", "1MB",
                                    "--cc", "both", "--json"])
    assert res.exit_code == 0, res.output
    return {r["cc"]: r for r in json.loads(res.output)["results"]}


def test_hpcc_incast_loses_nothing_and_keeps_a_lower_queue_than_dcqcn(both):
    h, d = both["hpcc"], both["dcqcn"]
    assert h["drops"] == 0 and h["completion_ns"] is not None and h["cnps"] == 0
    assert h["qdepth_p99_bytes"] * 2 < d["qdepth_p99_bytes"]
    assert h["utilisation"] > d["utilisation"]
    assert h["hpcc_profile"] == "hpcc-paper" and d["hpcc_profile"] is None
    for r in (h, d):
        assert 1 <= r["fct_slowdown_p50"] <= r["fct_slowdown_p99"] <= r["fct_slowdown_max"]


def test_cc_option_is_checked():
    res = CliRunner().invoke(main, ["scenario", "incast", "--cc", "timely"])
    assert res.exit_code != 0 and "timely" in res.output
    assert hpcc_flow.HPCC_TOS >> 2 == 0x1A


def test_text_rows_name_the_congestion_control_and_the_slowdowns():
    res = CliRunner().invoke(main, ["scenario", "incast", "--senders", "2", "--mode", "ecn", "--transfer", "400KB",
                                    "--cc", "hpcc", "--payload", "1000"])
    assert res.exit_code == 0, res.output
    (row,) = [line for line in res.output.splitlines() if "senders" in line]
    assert row.startswith("ecn/hpcc") and "FCT slowdown p50/p99/max" in row and "drops       0" in row
