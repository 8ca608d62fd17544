"""The progress line: its text, the time-left estimate, the opening delay, clearing, and
staying off when the output is not a terminal."""
from __future__ import annotations

import io
import os

import pytest

from dataplane import progress
from dataplane.net.core.sim import Simulator
from dataplane.progress import Progress, for_terminal, format_amount, format_seconds


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_amounts_in_their_units():
    assert format_amount(3_200_000, 10_000_000, "ns") == "3.20 ms of 10.00 ms simulated"
    assert format_amount(1_500_000, 8_000_000, "B") == "1.50 MB of 8.00 MB"
    assert format_amount(1234, 5000, "packets") == "1,234 of 5,000 packets"
    assert format_amount(7, None, "packets") == "7 packets"


def test_seconds_minutes_hours():
    assert format_seconds(4.25) == "4.2 s"
    assert format_seconds(65) == "1:05"
    assert format_seconds(3723) == "1:02:03"


def test_line_has_what_how_far_and_time_left():
    clock = Clock()
    p = Progress(io.StringIO(), clock=clock)
    p.stage("run leaf-spine", 10_000_000, "ns")
    clock.t += 2.0
    p.update(2_500_000)                       # a quarter in 2 s: 6 s to go
    assert p.line() == "run leaf-spine: 2.50 ms of 10.00 ms simulated   25%  2.0 s, ~6.0 s left"


def test_no_time_left_before_a_second_or_without_a_total():
    clock = Clock()
    p = Progress(io.StringIO(), clock=clock)
    p.stage("x", 100, "packets")
    clock.t += 0.5
    p.update(50)
    assert "left" not in p.line()
    p.stage("compile big.p4: parse (pass 2 of 4)")
    clock.t += 3.0
    assert p.line() == "compile big.p4: parse (pass 2 of 4)  3.0 s"


def test_draws_after_the_delay_in_place_and_clears():
    clock, out = Clock(), io.StringIO()
    p = Progress(out, clock=clock, delay=0.5, width=80)
    p.stage("scenario", 10, "steps")
    p.draw()
    assert out.getvalue() == ""                # a quick command shows nothing
    clock.t += 0.6
    p.update(5)
    p.draw()
    p.update(6)
    p.draw()
    text = out.getvalue()
    assert text.count("\r") == 2 and "\n" not in text and "6 of 10 steps" in text
    p.clear()
    assert out.getvalue().endswith("\r") and out.getvalue()[len(text):].strip() == ""


def test_line_never_wider_than_the_terminal_and_keeps_the_times():
    clock, out = Clock(), io.StringIO()
    p = Progress(out, clock=clock, delay=0, width=40)
    p.stage("a very long description of what runs", 10, "steps")
    p.draw()
    drawn = out.getvalue().lstrip("\r")
    assert len(drawn) == 39 and drawn.endswith("...    0%  0.0 s")
    narrow = Progress(io.StringIO(), clock=clock, delay=0, width=8)
    narrow.stage("a very long description of what runs", 10, "steps")
    narrow.draw()
    assert len(narrow.stream.getvalue().lstrip("\r")) == 10        # never fewer than 10 columns


def test_echo_prints_a_whole_line_outside_the_progress_line():
    clock, out = Clock(), io.StringIO()
    p = Progress(out, clock=clock, delay=0, width=80)
    p.stage("x", 10, "steps")
    p.draw()
    p.echo("result row")
    assert out.getvalue().endswith("\rresult row\n")


def test_quiet_when_not_a_terminal_or_json(monkeypatch):
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setattr("sys.stdout", Tty())
    assert for_terminal(stream=Tty()).enabled
    assert not for_terminal(stream=io.StringIO()).enabled          # stderr to a pipe
    assert not for_terminal(quiet=True, stream=Tty()).enabled       # --json
    monkeypatch.setattr("sys.stdout", io.StringIO())
    assert not for_terminal(stream=Tty()).enabled                   # stdout to a pipe
    monkeypatch.setattr("sys.stdout", Tty())
    monkeypatch.setenv("TERM", "dumb")
    assert not for_terminal(stream=Tty()).enabled


def test_a_disabled_line_is_not_opened_and_draws_nothing():
    out = io.StringIO()
    with Progress(out, enabled=False, delay=0) as p:
        assert progress.active() is None and progress.sim_hook() is None
        p.stage("x", 10, "steps")
        p.draw()
    assert out.getvalue() == ""


def test_event_core_reports_simulated_time_to_the_open_line():
    out = io.StringIO()
    with Progress(out, delay=3600, interval=3600) as p:     # open, but the ticker never draws
        p.stage("run", 10_000, "ns")
        sim = Simulator()
        for i in range(5000):
            sim.schedule(i, lambda: None)
        sim.run(10_000)
        assert p.done >= 2000          # ticked every 2,000 events with the simulated time
    assert progress.active() is None and out.getvalue() == ""


def test_stage_measure_turns_simulated_time_into_the_stages_measure():
    p = Progress(io.StringIO())
    p.stage("incast", 100, "B", measure=lambda now: now // 10)
    p.sim_tick(500)
    assert p.done == 50


def test_a_line_inside_an_open_line_leaves_the_drawing_to_the_outer_one(monkeypatch):
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setattr("sys.stdout", Tty())
    outer = Progress(io.StringIO(), delay=3600, interval=3600)
    with outer:
        inner = for_terminal(stream=Tty())
        assert not inner.enabled
        with inner:
            progress.stage("compile x.p4: parse (pass 2 of 4)")
        assert progress.active() is outer and outer.what == "compile x.p4: parse (pass 2 of 4)"


def test_output_printed_while_the_line_is_open_clears_it_first(monkeypatch):
    out, err = Tty(), Tty()
    monkeypatch.setattr("sys.stdout", out)
    with Progress(err, delay=0, interval=3600, width=80) as p:
        p.stage("scenario", 10, "steps")                 # drawn at once
        assert err.getvalue().startswith("\rscenario: 0 of 10 steps")
        print("result table")
        assert err.getvalue().endswith("\r" + " " * len("scenario: 0 of 10 steps    0%  0.0 s") + "\r")
    assert out.getvalue() == "result table\n"
    assert __import__("sys").stdout is out


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_forgets_the_open_line(monkeypatch):
    import sys
    out = Tty()
    monkeypatch.setattr("sys.stdout", out)
    with Progress(Tty(), delay=3600, interval=3600):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:                                   # the child: its streams are the ones from before
            ok = progress.active() is None and sys.stdout is out
            os.write(write, b"1" if ok else b"0")
            os._exit(0)
        os.waitpid(pid, 0)
        assert os.read(read, 1) == b"1"
        os.close(read)
        os.close(write)
