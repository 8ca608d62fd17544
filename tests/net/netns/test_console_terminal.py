"""``dataplane console`` runs a host's command on a terminal of its own, as Mininet's CLI does: its
output shows as it comes, what the user types is its input (the tutorials' ``h1 python3 calc.py``
asks and reads), and a background command's output is kept per host: shown before that host's
next command, or with ``log HOST``, and in ``RUN.logs/HOST.log``."""
from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time

import pytest

from .test_realtime_netns import DATAPLANE, RealtimeRun, netns_skip_reason

pytestmark = [pytest.mark.no_pypy, pytest.mark.realtime]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    reason = netns_skip_reason()
    if reason:
        pytest.skip(reason)
    d = tmp_path_factory.mktemp("console")
    r = RealtimeRun(f"c{os.getpid()}", d, d / "run.log")
    try:
        r.wait_up()
        yield r
    finally:
        left = r.stop()
    assert left == [], left


class Terminal:
    """``dataplane console`` on a pseudo-terminal, typed into as a user would."""

    def __init__(self, run: RealtimeRun):
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen([*DATAPLANE, "console", "--run", run.name], stdin=slave, stdout=slave,
                                     stderr=slave, env=run.env, start_new_session=True)
        os.close(slave)
        self.seen = ""
        self.pos = 0          # where the next expect starts looking

    def expect(self, text: str, timeout: float = 20) -> None:
        """Read until ``text`` appears after what the last expect matched."""
        deadline = time.monotonic() + timeout
        while text not in self.seen[self.pos:]:
            assert time.monotonic() < deadline, f"no {text!r} in:\n{self.seen[self.pos:]}"
            ready, _, _ = select.select([self.master], [], [], 0.1)
            if ready:
                try:
                    self.seen += os.read(self.master, 65536).decode(errors="replace")
                except OSError:
                    break
        assert text in self.seen[self.pos:], self.seen
        self.pos = self.seen.index(text, self.pos) + len(text)

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def close(self) -> None:
        if self.proc.poll() is None:
            self.expect("dataplane> ")
            self.type("exit\r")
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        os.close(self.master)


def test_a_foreground_command_reads_the_keyboard_and_shows_its_prompt_before_it_ends(run):
    """The command prompts; the prompt shows while it waits; what is typed next is its input."""
    term = Terminal(run)
    try:
        term.expect("dataplane> ")
        program = "x = input('num' + 'ber? '); print('twi' + 'ce', int(x) * 2)"   # not in the echoed line
        term.type(f'h1 {sys.executable} -c "{program}"\r')
        term.expect("number? ")       # shown while the command waits for its input
        term.type("21\r")
        term.expect("twice 42")
        term.expect("dataplane> ")        # and the console has its terminal back
        term.type("h1 echo back\r")
        term.expect("echo back")          # the console's echo of the line
        term.expect("back")               # the command's output
    finally:
        term.close()
    assert term.proc.returncode == 0, term.seen


def test_ctrl_c_stops_the_foreground_command_not_the_console(run):
    term = Terminal(run)
    try:
        term.expect("dataplane> ")
        term.type("h1 sleep 30\r")
        time.sleep(0.5)
        started = time.monotonic()
        term.type("\x03")
        term.expect("dataplane> ", timeout=10)
        assert time.monotonic() - started < 5
        term.type("h1 echo still here\r")
        term.expect("echo still here")
        term.expect("still here")
    finally:
        term.close()


def test_output_streams_as_it_comes_from_a_console_reading_a_pipe(run):
    """From a script: the first line shows about a second before the command ends."""
    proc = subprocess.Popen([*DATAPLANE, "console", "--run", run.name], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, env=run.env)
    proc.stdin.write(b"h1 sh -c 'echo first; sleep 1.5; echo second'\nexit\n")
    proc.stdin.close()
    seen, times = b"", {}
    deadline = time.monotonic() + 30
    while b"second" not in seen and time.monotonic() < deadline:
        chunk = os.read(proc.stdout.fileno(), 4096)
        if not chunk:
            break
        seen += chunk
        for word in (b"first", b"second"):
            if word in seen and word not in times:
                times[word] = time.monotonic()
    proc.wait(timeout=20)
    assert set(times) == {b"first", b"second"}, seen
    assert times[b"second"] - times[b"first"] > 1.0


def test_background_output_is_kept_per_host_and_shown(run):
    """`h2 ... &` writes to RUN.logs/h2.log; `jobs` lists it; `log h2` shows it, and what comes
    later shows before h2's next command, as on a Mininet host."""
    script = ("h2 sh -c 'echo from the background' &\n"
              "h1 sleep 1\n"
              "jobs\n"
              "log h2\n"
              "log h2\n"
              "h2 sh -c 'echo later too' &\n"
              "h1 sleep 1\n"
              "h2 echo in front\n"
              "exit\n")
    r = subprocess.run([*DATAPLANE, "console", "--run", run.name], input=script, capture_output=True, text=True,
                       env=run.env, timeout=60)
    assert r.returncode == 0, r.stderr
    log = run.state_file.with_suffix(".logs") / "h2.log"
    assert "[1] " in r.stdout and f"(output: {log})" in r.stdout
    assert "[1] exit 0   h2: sh -c echo from the background" in r.stdout
    assert r.stdout.count("from the background") == 1 + 1          # the jobs line, and log h2 once
    assert f"*** h2: no new background output ({log})" in r.stdout   # the second log h2
    assert "later too\nin front" in r.stdout
    assert log.read_text() == "from the background\nlater too\n"
