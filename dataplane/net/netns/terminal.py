"""A console command in the foreground: on a pseudo-terminal, its output shown as it comes, and
the keyboard its input, as Mininet's CLI runs ``h1 python3 calc.py``.

The command gets a new session whose controlling terminal is the pty (``setsid -c``), so it
sees a terminal as on a Mininet host: line-buffered output, prompts, ``input()``, and Ctrl-C
reaching it as SIGINT. When the console reads a terminal, that terminal is put in raw mode for
the command's lifetime and every key goes to the pty, whose line discipline then echoes, edits
lines, turns Ctrl-C into SIGINT and Ctrl-D into end of input, as a shell would; the console's
terminal is restored afterwards, whatever happens. There is no time limit then: the user stops
the command with Ctrl-C.

When the console reads a pipe or a file (a script), the command's input is /dev/null (end of
input at once, as before), its output still streams, echo and CR/LF translation are off so the
output is the command's own bytes, and ``timeout_s`` bounds it: past it the command's process
group gets SIGTERM, then SIGKILL.
"""
from __future__ import annotations

import codecs
import fcntl
import os
import pty
import select
import signal
import subprocess
import termios
import time
import tty
from typing import Callable

_KILL_GRACE_S = 2.0      # between SIGTERM and SIGKILL for a command past its time
_DRAIN_S = 0.2           # output still read after the command ended (what its children still hold is left)


def is_terminal(fd: int | None) -> bool:
    return fd is not None and os.isatty(fd)


def run_on_pty(args: list[str], write: Callable[[str], None], *, keyboard: int | None = None,
               timeout_s: float | None = None) -> int | None:
    """Run ``args`` on a new pty; ``write(text)`` gets its output as it comes. ``keyboard``: the
    console's input fd when it is a terminal (interactive: keys go to the command, no time limit);
    None otherwise. Returns the exit status, or None when ``timeout_s`` stopped it."""
    master, slave = pty.openpty()
    interactive = is_terminal(keyboard)
    try:
        attrs = termios.tcgetattr(slave)
        if interactive:
            try:
                size = fcntl.ioctl(keyboard, termios.TIOCGWINSZ, b"\0" * 8)
                fcntl.ioctl(slave, termios.TIOCSWINSZ, size)
            except OSError:
                pass
        else:
            attrs[1] &= ~termios.ONLCR                 # oflag: the command's "\n" stays "\n"
            attrs[3] &= ~(termios.ECHO | termios.ICANON)
            termios.tcsetattr(slave, termios.TCSANOW, attrs)
        # --ctty takes the terminal from stdin, so only with the pty as stdin
        setsid = ["setsid", "--wait", "--ctty"] if interactive else ["setsid", "--wait"]
        proc = subprocess.Popen([*setsid, *args], stdin=slave if interactive else subprocess.DEVNULL, stdout=slave,
                                stderr=slave, close_fds=True)
    except BaseException:
        os.close(master)
        os.close(slave)
        raise
    os.close(slave)
    saved = None
    if interactive:
        saved = termios.tcgetattr(keyboard)
        tty.setraw(keyboard)
    try:
        return _pump(proc, master, write, keyboard if interactive else None,
                     None if interactive else timeout_s)
    finally:
        if saved is not None:
            termios.tcsetattr(keyboard, termios.TCSADRAIN, saved)
        os.close(master)
        if proc.poll() is None:
            _stop(proc)


def _pump(proc: subprocess.Popen, master: int, write: Callable[[str], None], keyboard: int | None,
          timeout_s: float | None) -> int | None:
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    ended_at = None
    watch = [master] + ([keyboard] if keyboard is not None else [])
    typed = b""         # keys not yet given to the pty: held until the command has taken it
    while True:
        try:
            ready, _, _ = select.select(watch, [], [], 0.05)
        except InterruptedError:
            ready = []
        except KeyboardInterrupt:       # Ctrl-C on a console without a terminal: to the command
            _signal(proc, signal.SIGINT)
            continue
        if master in ready:
            try:
                data = os.read(master, 65536)
            except OSError:             # EIO: every holder of the pty's other end has closed it
                data = b""
            if not data:
                break
            write(decoder.decode(data))
        if keyboard is not None and keyboard in ready:
            keys = os.read(keyboard, 1024)
            if keys:
                typed += keys
            else:
                watch.remove(keyboard)  # the console's input ended: the command keeps its own
        if typed and _has_terminal(master):
            os.write(master, typed)
            typed = b""
        if proc.poll() is not None:
            ended_at = ended_at or time.monotonic()
            if master not in ready and time.monotonic() - ended_at > _DRAIN_S:
                break
        elif deadline is not None and time.monotonic() > deadline:
            _stop(proc)
            write(decoder.decode(b"", final=True))
            return None
    write(decoder.decode(b"", final=True))
    return proc.wait()


def _has_terminal(master: int) -> bool:
    """Whether the command has made the pty its controlling terminal (``setsid --ctty``). Until
    then the pty has no foreground process group, and a Ctrl-C typed into it would signal
    nobody: a command started on a slow machine would run on past a key pressed at once."""
    try:
        return os.tcgetpgrp(master) > 0
    except OSError:
        return False


def _signal(proc: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)        # setsid made the command its own process group
    except (ProcessLookupError, PermissionError):
        pass


def _stop(proc: subprocess.Popen) -> None:
    _signal(proc, signal.SIGTERM)
    try:
        proc.wait(timeout=_KILL_GRACE_S)
    except subprocess.TimeoutExpired:
        _signal(proc, signal.SIGKILL)
        proc.wait()
