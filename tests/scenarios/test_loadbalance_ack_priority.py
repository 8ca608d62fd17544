"""``dataplane scenario loadbalance --ack-priority``: ACKs in a class the switches serve first.
The hosts send ACKs with DSCP 48, every switch port gets 8 strict-priority queues, and the
load-balancing programs queue a packet by its IP precedence (``programs/lb_routes.p4h``), so
ACKs (precedence 6) leave from queue 6 and data (DSCP 0) from queue 0; observed on the built
fabric's ports. The effect: under a slow uplink, rack 1's inbound flows no longer wait for ACKs
queued behind its outbound data."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from dataplane.cli import main
from dataplane.scenarios import _loadbalance_cc

pytestmark = pytest.mark.simulation      # runs in the PyPy re-run only, when there is one (tests/conftest.py)

RECORD_QUEUES = _loadbalance_cc.record_queues


def run(monkeypatch, *args: str) -> tuple[dict, list]:
    """The JSON payload and the networks the runs built."""
    nets: list = []

    def keep(net):
        nets.append(net)
        return RECORD_QUEUES(net)

    monkeypatch.setattr(_loadbalance_cc, "record_queues", keep)
    result = CliRunner().invoke(main, ["scenario", "loadbalance", "--k", "4", "--json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.output), nets


def per_queue(net) -> dict[int, tuple[int, int]]:
    """(frames, bytes) each queue id sent, over every switch port."""
    out: dict[int, tuple[int, int]] = {}
    for switch in net.switches.values():
        for port in switch.ports.values():
            for qid, st in enumerate(port.queue.stats):
                frames, size = out.get(qid, (0, 0))
                out[qid] = (frames + st.tx_packets, size + st.tx_bytes)
    return out


@pytest.mark.parametrize("lb", ["reps", "spray"])
def test_acks_leave_from_the_top_class_and_data_from_the_bottom_one(monkeypatch, lb):
    payload, (net,) = run(monkeypatch, "--size", "256KiB", "--lb", lb, "--event", "none", "--ack-priority")
    assert payload["ack_priority"] is True
    assert payload["results"][0]["lb_detail"].endswith(", ACKs served first")
    used = {qid: v for qid, v in per_queue(net).items() if v[0]}
    assert set(used) == {0, 6}
    data, acks = used[0], used[6]
    assert data[1] / data[0] > 4000 and acks[1] / acks[0] < 200       # 4 KB payloads; ACKs are headers
    assert acks[0] > 16 * 4                                            # 16 flows, several ACKs, several hops


def test_without_the_option_the_ports_keep_one_queue(monkeypatch):
    payload, (net,) = run(monkeypatch, "--size", "64KiB", "--lb", "reps", "--event", "none")
    assert "ack_priority" not in payload          # the payload as before the option
    assert all(not hasattr(port.queue, "stats") for sw in net.switches.values() for port in sw.ports.values())


def test_acks_served_first_let_rack_ones_flows_finish_sooner_under_a_slow_uplink(monkeypatch):
    args = ("--size", "2MiB", "--lb", "reps", "--spray-acks", "--event", "slow")
    plain, _ = run(monkeypatch, *args)
    first, _ = run(monkeypatch, *args, "--ack-priority")
    (p,), (f,) = plain["results"], first["results"]
    # measured: 268 us and 260 us for the last flow (k=4, seed 1); the rest of the fabric is unchanged
    assert f["completion_us"] < p["completion_us"] and f["goodput_gbps"] > p["goodput_gbps"]
    assert f["retransmitted"] == p["retransmitted"] == 0


def test_ack_priority_is_refused_with_hpcc():
    result = CliRunner().invoke(main, ["scenario", "loadbalance", "--k", "4", "--size", "64KiB", "--cc", "hpcc",
                                       "--event", "none", "--ack-priority"])
    assert result.exit_code == 2 and "--ack-priority" in result.output and "Traceback" not in result.output
