"""Progress of long work on a terminal: one line on stderr, redrawn in place, cleared at the end.

A command opens a ``Progress`` (``for_terminal()``) around its work and names each stage
(``stage(what, total, unit)``); code deep in the package (a scenario, the compiler, the
event core) reaches the open line through the module functions ``stage``, ``update`` and
``sim_hook`` without being handed it, and they do nothing when no line is open. A line is
open only when stdout and stderr are both terminals and the command was not asked for
``--json`` (or ``-q``), so piped and machine-read output never holds a progress character.

The line draws nothing for the first ``delay`` seconds (a quick command shows no flicker),
then at most every ``interval`` seconds; an update in between costs one clock read. The
event core asks ``sim_hook()`` once per ``Simulator.run`` call and, with no open line, runs
its bare loop: progress costs nothing when it is off. Only the standard library is used:
one line of text needs no drawing library.
"""
from __future__ import annotations

import os
import shutil
import sys
import time
from typing import Callable, TextIO

__all__ = ["Progress", "for_terminal", "active", "stage", "update", "sim_hook", "clear", "echo",
           "format_amount", "format_seconds"]

Measure = Callable[[int], float]      # simulated now (ns) -> how far, in the stage's unit

_active: "Progress | None" = None


class Progress:
    """One progress line on ``stream``; a context manager that makes it the open line (when enabled)."""

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
        self._next_draw = self.opened + delay
        self._shown = 0              # characters of the line now on the terminal
        self._previous: Progress | None = None

    # ---- what is running --------------------------------------------------------------------------
    def stage(self, what: str, total: float | None = None, unit: str = "", measure: Measure | None = None) -> None:
        """Start a stage: ``what`` runs, ``total`` of ``unit`` to go (None: unknown). Unit ``ns`` is
        simulated time; ``measure(now_ns)`` turns the event core's clock into the stage's own measure."""
        self.what, self.total, self.unit, self.measure = what, total, unit, measure
        self.done = 0.0
        self.stage_started = now = self.clock()
        if self.enabled and now >= self.opened + self.delay:
            self._next_draw = now          # a new stage shows at once (after the opening delay)
        self.update(0)

    def update(self, done: float) -> None:
        """The stage is ``done`` far; redraws if the last draw is ``interval`` old."""
        self.done = done
        if not self.enabled:
            return
        now = self.clock()
        if now < self._next_draw:
            return
        self._next_draw = now + self.interval
        self._draw(self.line(now))

    def sim_tick(self, now_ns: int) -> None:
        """The event core's hook: simulated time ``now_ns`` reached."""
        self.update(self.measure(now_ns) if self.measure is not None else now_ns)

    # ---- the text ---------------------------------------------------------------------------------
    def line(self, now: float | None = None) -> str:
        """``WHAT: DONE of TOTAL UNIT  PCT%  ELAPSED, ~LEFT left`` (parts without a value left out)."""
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
        return "  ".join(parts)

    # ---- the terminal -----------------------------------------------------------------------------
    def _columns(self) -> int:
        if self.width is not None:
            return self.width
        return shutil.get_terminal_size((80, 24)).columns

    def _draw(self, text: str) -> None:
        text = text[:max(self._columns() - 1, 10)]    # never the last column: some terminals wrap there
        pad = " " * max(self._shown - len(text), 0)
        self.stream.write(f"\r{text}{pad}")
        self.stream.flush()
        self._shown = len(text)

    def clear(self) -> None:
        """Take the line off the terminal (the next update draws it again)."""
        if self._shown:
            self.stream.write("\r" + " " * self._shown + "\r")
            self.stream.flush()
            self._shown = 0
            self._next_draw = self.clock()

    def echo(self, text: str, err: bool = True) -> None:
        """Print a whole line of output without mixing it into the progress line."""
        self.clear()
        out = self.stream if err else sys.stdout
        out.write(text + "\n")
        out.flush()

    def __enter__(self) -> "Progress":
        global _active
        if self.enabled:
            self._previous, _active = _active, self
        return self

    def __exit__(self, *exc: object) -> None:
        global _active
        self.clear()
        if self.enabled and _active is self:
            _active = self._previous


def for_terminal(quiet: bool = False, stream: TextIO | None = None) -> Progress:
    """A progress line that shows only when stdout and stderr are terminals (not ``TERM=dumb``)
    and ``quiet`` (``--json``, ``-q``) is off; otherwise one that draws nothing."""
    stream = stream if stream is not None else sys.stderr
    enabled = not quiet and _is_tty(stream) and _is_tty(sys.stdout) and os.environ.get("TERM") != "dumb"
    return Progress(stream, enabled=enabled)


def _is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):     # a replaced or closed stream
        return False


# ---- the open line, for code that is not handed one -----------------------------------------------
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
