"""``run_on_pty`` on its own (no namespaces, no root): the keys a user types reach the command
through its pseudo-terminal, Ctrl-C among them, however soon after the command started."""
from __future__ import annotations

import os
import pty
import subprocess
import sys
import termios
import threading
import time

import pytest

from dataplane.net.netns import terminal

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="setsid --ctty is util-linux's")

POPEN = subprocess.Popen


def type_when_raw(user: int, console: int, keys: bytes) -> threading.Thread:
    """Type ``keys`` as soon as the console has put its terminal in raw mode (keys typed before
    are the console's own: cooked, and flushed by the switch to raw)."""
    def typing():
        deadline = time.monotonic() + 10
        while termios.tcgetattr(console)[3] & termios.ICANON and time.monotonic() < deadline:
            time.sleep(0.001)
        os.write(user, keys)
    t = threading.Thread(target=typing, daemon=True)
    t.start()
    return t


@pytest.fixture
def keyboard():
    """A terminal for the console to read, and its far end, the user's side, to type into."""
    user, console = pty.openpty()
    yield user, console
    os.close(user)
    os.close(console)


@pytest.fixture
def slow_start(monkeypatch):
    """The command takes its terminal 0.3 s after it was started, as on a loaded machine."""
    def delayed(args, **kwargs):
        return POPEN(["sh", "-c", 'sleep 0.3; exec "$@"', "sh", *args], **kwargs)
    monkeypatch.setattr(terminal.subprocess, "Popen", delayed)


def test_a_ctrl_c_typed_before_the_command_took_its_terminal_stops_it(keyboard, slow_start):
    """The key must wait until the command's session owns the pty: written at once, the pty has
    no foreground group yet and the Ctrl-C signals nobody (the command would run its 20 s)."""
    user, console = keyboard
    typist = type_when_raw(user, console, b"\x03")
    started = time.monotonic()
    status = terminal.run_on_pty(["sleep", "20"], lambda text: None, keyboard=console)
    typist.join()
    assert time.monotonic() - started < 10 and status != 0, status


def test_typed_keys_are_the_commands_input(keyboard, slow_start):
    user, console = keyboard
    typist = type_when_raw(user, console, b"21\r")
    seen: list[str] = []
    status = terminal.run_on_pty([sys.executable, "-c", "print('twice', int(input()) * 2)"], seen.append,
                                 keyboard=console)
    typist.join()
    assert status == 0 and "twice 42" in "".join(seen), seen
