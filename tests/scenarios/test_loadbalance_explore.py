"""``dataplane scenario loadbalance --lb reps --explore-every N``: every sender's entropy draws a
fresh EV every N-th packet (``EntropyParams.explore_every``, whose rule test_entropy.py proves);
here, that the option reaches every sender from the command line, and only reps takes it."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from dataplane.cli import main
from dataplane.net.rdma import entropy

INIT = entropy.EntropySender.__init__


def senders(monkeypatch, loadbalance_row, *args: str) -> tuple[dict, list[entropy.EntropySender]]:
    made: list[entropy.EntropySender] = []

    def keep(self, qp, params):
        INIT(self, qp, params)
        made.append(self)

    monkeypatch.setattr(entropy.EntropySender, "__init__", keep)
    row = loadbalance_row("--size", "1MiB", "--lb", "reps", "--event", "none", *args)
    return row, made


def test_explore_every_reaches_every_sender(monkeypatch, loadbalance_row):
    plain, before = senders(monkeypatch, loadbalance_row)
    row, made = senders(monkeypatch, loadbalance_row, "--explore-every", "8")
    made, before = [s for s in made if s.sent], [s for s in before if s.sent]    # the requesters
    assert len(made) == len(before) == 16 and {s.sent for s in made} == {256}    # 1 MiB in 4 KB packets
    assert {s.every for s in made} == {8} and {s.every for s in before} == {0}
    # the first 64 explored, then the 8th, 16th, ... of the 256 handed out: 24 more at least
    assert min(s.fresh for s in made) >= 64 + 24
    assert sum(s.fresh for s in made) > sum(s.fresh for s in before)
    assert "a fresh one every 8 packets" in row["lb_detail"] and "fresh one" not in plain["lb_detail"]


@pytest.mark.parametrize("lb", ["spray", "ecmp"])
def test_explore_every_is_refused_for_schemes_whose_switches_choose(lb):
    result = CliRunner().invoke(main, ["scenario", "loadbalance", "--k", "4", "--size", "64KiB", "--lb", lb,
                                       "--event", "none", "--explore-every", "8"])
    assert result.exit_code == 2 and "--explore-every" in result.output and "needs --lb reps" in result.output
    assert "Traceback" not in result.output
