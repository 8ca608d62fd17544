"""Progress of long work on a terminal: one line on stderr, redrawn in place, cleared at the end.

A command opens a ``Progress`` (``for_terminal()``) around its work and names each stage
(``stage(what, total, unit)``); code deep in the package (a scenario, the compiler, the
event core) reaches the open line through the module functions ``stage``, ``update`` and
``sim_hook`` without being handed it, and they do nothing when no line is open. A line is
open only when stdout and stderr are both terminals and the command was not asked for
``--json`` (or ``-q``), so piped and machine-read output never holds a progress character.

The work only records how far it is (an attribute set); a ticker thread redraws the line
every ``interval`` seconds once ``delay`` has passed (a quick command shows no flicker), so a
single long step (parsing a large program) still shows its elapsed time. While a line is
open, every write to stdout or stderr takes its lock and clears it first, so no output lands
inside the line. The event core asks
``sim_hook()`` once per ``Simulator.run`` call and, with no open line, runs its bare loop:
progress costs nothing when it is off. Only the standard library is used: one line of text
needs no drawing library.
"""
from __future__ import annotations

import os
import shutil
import sys
import threading
import time
from typing import Callable, TextIO

__all__ = ["Progress", "for_terminal", "active", "stage", "update", "sim_hook", "clear", "echo",
           "format_amount", "format_seconds"]

Measure = Callable[[int], float]      # simulated now (ns) -> how far, in the stage's unit

_active: "Progress | None" = None


class Progress:
    """One progress line on ``stream``; as a context manager (when enabled) it is the open line,
    redrawn by a ticker thread every ``interval`` seconds once ``delay`` has passed."""

    def __init__(self, stream: TextIO | None = None, *, enabled: bool = True, delay: float = 0.5,
                 interval: float = 0.1, clock: Callable[[], float] = time.monotonic, width: int | None = None):
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.delay, self.interval, self.clock, self.width = delay, interval, clock, width
        self.opened = clock()
        self.what = ""
        self.total: float | None = None
        self.unit = ""
        self.measure: Measure | None = None
        self.done = 0.0
        self.stage_started = self.opened
        self._shown = 0              # characters of the line now on the terminal
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        self._previous: Progress | None = None
        self._saved_streams: tuple[TextIO, TextIO] | None = None

    # ---- what is running (called from the work; cheap: the ticker draws) --------------------------
    def stage(self, what: str, total: float | None = None, unit: str = "", measure: Measure | None = None) -> None:
        """Start a stage: ``what`` runs, ``total`` of ``unit`` to go (None: unknown). Unit ``ns`` is
        simulated time; ``measure(now_ns)`` turns the event core's clock into the stage's own measure."""
        with self._lock:
            self.what, self.total, self.unit, self.measure = what, total, unit, measure
            self.done = 0.0
            self.stage_started = now = self.clock()
            if self._ticker is not None and now >= self.opened + self.delay:
                self._draw(self.line(now, self._width()))      # every stage shows, however short

    def update(self, done: float) -> None:
        """The stage is ``done`` far (the next redraw shows it)."""
        self.done = done

    def sim_tick(self, now_ns: int) -> None:
        """The event core's hook: simulated time ``now_ns`` reached."""
        measure = self.measure
        self.done = measure(now_ns) if measure is not None else now_ns

    # ---- the text ---------------------------------------------------------------------------------
    def line(self, now: float | None = None, width: int | None = None) -> str:
        """``WHAT: DONE of TOTAL UNIT  PCT%  ELAPSED, ~LEFT left`` (parts without a value left out);
        past ``width`` characters the head is cut (``...``), so the times stay in view."""
        now = self.clock() if now is None else now
        elapsed = now - self.stage_started
        amount = format_amount(self.done, self.total, self.unit) if self.total or self.unit else ""
        parts = [": ".join(p for p in (self.what, amount) if p)]
        if self.total:
            frac = min(max(self.done / self.total, 0.0), 1.0)
            parts.append(f"{frac * 100:3.0f}%")
            timing = format_seconds(elapsed)
            if 0 < frac < 1 and elapsed >= 1.0:
                timing += f", ~{format_seconds(elapsed * (1 - frac) / frac)} left"
            parts.append(timing)
        else:
            parts.append(format_seconds(elapsed))
        text = "  ".join(parts)
        if width is not None and len(text) > width:
            tail = "  ".join(parts[1:])
            room = width - len(tail) - 5
            text = f"{parts[0][:room]}...  {tail}" if room > 0 else text[:width]
        return text

    # ---- the terminal -----------------------------------------------------------------------------
    def draw(self) -> None:
        """Redraw the line now if the opening delay has passed (the ticker's job; tests call it)."""
        with self._lock:
            now = self.clock()
            if self.enabled and now >= self.opened + self.delay and (self.what or self.total):
                self._draw(self.line(now, self._width()))

    def _width(self) -> int:
        """Columns the line may take: never the last one (some terminals wrap there), at least 10."""
        columns = self.width if self.width is not None else shutil.get_terminal_size((80, 24)).columns
        return max(columns - 1, 10)

    def _draw(self, text: str) -> None:
        text = text[:self._width()]
        pad = " " * max(self._shown - len(text), 0)
        self.stream.write(f"\r{text}{pad}")
        self.stream.flush()
        self._shown = len(text)

    def _clear(self) -> None:
        if self._shown:
            self.stream.write("\r" + " " * self._shown + "\r")
            self.stream.flush()
            self._shown = 0

    def clear(self) -> None:
        """Take the line off the terminal (the next tick draws it again)."""
        with self._lock:
            self._clear()

    def echo(self, text: str, err: bool = True) -> None:
        """Print ``text`` as a whole line (stderr, or stdout with ``err=False``), never inside the progress line."""
        with self._lock:
            self._clear()
            out = self.stream if err else (self._saved_streams or (sys.stdout,))[0]
            out.write(text + "\n")
            out.flush()

    def _tick(self) -> None:
        while not self._stop.wait(self.interval):
            self.draw()

    def __enter__(self) -> "Progress":
        global _active
        if self.enabled:
            self._previous, _active = _active, self
            # Whatever else the command prints while the line is open (a scenario's table, a
            # warning) takes the line off first, under the same lock, and is flushed at once.
            self._saved_streams = (sys.stdout, sys.stderr)
            sys.stdout = _ClearFirst(sys.stdout, self)     # type: ignore[assignment]
            sys.stderr = _ClearFirst(sys.stderr, self)     # type: ignore[assignment]
            self._stop.clear()
            self._ticker = threading.Thread(target=self._tick, name="progress", daemon=True)
            self._ticker.start()
        return self

    def __exit__(self, *exc: object) -> None:
        global _active
        if self._ticker is not None:
            self._stop.set()
            self._ticker.join()
            self._ticker = None
        self.clear()
        if self._saved_streams is not None:
            sys.stdout, sys.stderr = self._saved_streams
            self._saved_streams = None
        if self.enabled and _active is self:
            _active = self._previous


class _ClearFirst:
    """``sys.stdout`` or ``sys.stderr`` while a progress line is open: each write clears the line
    first and is flushed before the lock is let go, so no output lands inside the line."""

    def __init__(self, stream: TextIO, line: Progress):
        self._stream, self._line = stream, line

    def write(self, text: str) -> int:
        with self._line._lock:
            self._line._clear()
            n = self._stream.write(text)
            self._stream.flush()
            return n

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def for_terminal(quiet: bool = False, stream: TextIO | None = None) -> Progress:
    """A progress line that shows only when stdout and stderr are terminals (not ``TERM=dumb``)
    and ``quiet`` (``--json``, ``-q``) is off; otherwise one that draws nothing. It shows after
    ``$DATAPLANE_PROGRESS_DELAY`` seconds (0.5; 0 shows it at once)."""
    stream = stream if stream is not None else sys.stderr
    try:
        delay = float(os.environ.get("DATAPLANE_PROGRESS_DELAY", "0.5"))
    except ValueError:
        delay = 0.5
    # Inside an open line (a scenario compiling its program) the outer line goes on showing.
    enabled = (_active is None and not quiet and _is_tty(stream) and _is_tty(sys.stdout)
               and os.environ.get("TERM") != "dumb")
    return Progress(stream, enabled=enabled, delay=delay)


def _is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):     # a replaced or closed stream
        return False


# ---- the open line, for code that is not handed one -----------------------------------------------
def _forget_in_child() -> None:
    """A forked worker (conformance's pool) neither draws nor waits on the parent's lock:
    it forgets the open line and writes to the streams as they were before it opened."""
    global _active
    if _active is not None and _active._saved_streams is not None:
        sys.stdout, sys.stderr = _active._saved_streams
    _active = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)


def active() -> Progress | None:
    """The open progress line, or None."""
    return _active


def stage(what: str, total: float | None = None, unit: str = "", measure: Measure | None = None) -> None:
    """``Progress.stage`` on the open line, if any."""
    if _active is not None:
        _active.stage(what, total, unit, measure)


def update(done: float) -> None:
    """``Progress.update`` on the open line, if any."""
    if _active is not None:
        _active.update(done)


def sim_hook() -> Callable[[int], None] | None:
    """What the event core calls every few thousand events: the open line's ``sim_tick``, or None."""
    return _active.sim_tick if _active is not None else None


def clear() -> None:
    """Clear the open line, if any (before printing to the terminal)."""
    if _active is not None:
        _active.clear()


def echo(text: str, err: bool = True) -> None:
    """Print ``text`` as a line, clearing the open progress line first."""
    if _active is not None:
        _active.echo(text, err)
    else:
        print(text, file=sys.stderr if err else sys.stdout, flush=True)


# ---- numbers ------------------------------------------------------------------------------------------
_TIME_UNITS = ((1_000_000_000, "s"), (1_000_000, "ms"), (1_000, "us"), (1, "ns"))
_BYTE_UNITS = ((1_000_000_000, "GB"), (1_000_000, "MB"), (1_000, "KB"), (1, "B"))   # as --transfer 8MB means


def _scaled(value: float, scale: float, units: tuple[tuple[int, str], ...]) -> str:
    for factor, name in units:
        if scale >= factor:
            return f"{value / factor:.{0 if factor == 1 else 2}f} {name}"
    return f"{value:.0f} {units[-1][1]}"


def format_amount(done: float, total: float | None, unit: str) -> str:
    """``3.20 ms of 10.00 ms simulated``, ``1.50 MB of 8.00 MB``, ``1,234 of 5,000 packets``."""
    if unit == "ns":
        scale = total if total else max(done, 1)
        text = _scaled(done, scale, _TIME_UNITS)
        return f"{text} of {_scaled(total, scale, _TIME_UNITS)} simulated" if total else f"{text} simulated"
    if unit == "B":
        scale = total if total else max(done, 1)
        text = _scaled(done, scale, _BYTE_UNITS)
        return f"{text} of {_scaled(total, scale, _BYTE_UNITS)}" if total else text
    count = f"{done:,.0f}"
    if total:
        count += f" of {total:,.0f}"
    return f"{count} {unit}".rstrip()


def format_seconds(seconds: float) -> str:
    """``4.2 s``, ``1:05`` (m:ss), ``1:02:03`` (h:mm:ss)."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    s = int(seconds)
    if s < 3600:
        return f"{s // 60}:{s % 60:02d}"
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"
