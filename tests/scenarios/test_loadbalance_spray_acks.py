"""``dataplane scenario loadbalance --lb reps --spray-acks``: the responders send each ACK on a
fresh random entropy instead of their queue pair's own UDP source port. Observed end to end on a
k=4 fat-tree by recording every port an ACK leaves with (``EntropyEcho.ack_port``'s answers): the
option must reach the transport from the command line, and only for reps."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from dataplane.cli import main
from dataplane.net.rdma import entropy

ACK_PORT = entropy.EntropyEcho.ack_port

def run(monkeypatch, loadbalance_row, *args: str) -> tuple[dict, list[tuple[int, int]]]:
    """The run's row and (flow's own port, port the ACK left with) for every ACK."""
    seen: list[tuple[int, int]] = []

    def recording(self, port):
        chosen = ACK_PORT(self, port)
        seen.append((port, chosen))
        return chosen

    monkeypatch.setattr(entropy.EntropyEcho, "ack_port", recording)
    row = loadbalance_row("--size", "256KiB", "--lb", "reps", "--event", "none", *args)
    return row, seen


def test_spray_acks_puts_the_acks_on_fresh_entropy_and_the_default_keeps_the_flows_port(monkeypatch, loadbalance_row):
    plain, kept = run(monkeypatch, loadbalance_row)
    sprayed, drawn = run(monkeypatch, loadbalance_row, "--spray-acks")
    assert len(kept) > 16 * 4 and len(drawn) > 16 * 4           # 16 flows, several ACKs each
    assert all(own == chosen for own, chosen in kept)
    moved = [chosen for own, chosen in drawn if chosen != own]
    assert len(moved) >= len(drawn) - 1                          # 16,384 values: the own port at most once
    assert all(entropy.EV_FIRST <= p < entropy.EV_FIRST + entropy.EV_COUNT for p in moved)
    assert len(set(moved)) > len(moved) // 2                     # drawn, not one port per flow
    assert "ACKs sprayed" in sprayed["lb_detail"] and "ACKs sprayed" not in plain["lb_detail"]
    for row in (plain, sprayed):
        assert row["retransmitted"] == 0 and row["drops"] == 0


@pytest.mark.parametrize("lb", ["spray", "ecmp"])
def test_spray_acks_is_refused_for_schemes_whose_switches_choose(lb):
    result = CliRunner().invoke(main, ["scenario", "loadbalance", "--k", "4", "--size", "64KiB", "--lb", lb,
                                       "--event", "none", "--spray-acks"])
    assert result.exit_code == 2 and "--spray-acks" in result.output and "needs --lb reps" in result.output
    assert "Traceback" not in result.output
