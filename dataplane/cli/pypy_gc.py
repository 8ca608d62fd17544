"""On PyPy, the ``dataplane`` command runs with a young generation sized for a network of packets.

PyPy sizes its nursery from the CPU's cache (1 MB on the development machine) and reads
``PYPY_GC_NURSERY`` only when the interpreter starts. A simulated fabric keeps thousands of
4 KB frames alive in its queues, so with 1 MB nearly every frame outlives a minor collection,
is promoted and waits for a major one: the collector took 36-78% of PyPy's CPU on bench_sim's
RDMA workloads (docs/speed/simulator.md). The command therefore starts itself again, once,
with ``PYPY_GC_NURSERY`` set to ``DATAPLANE_PYPY_NURSERY`` (``NURSERY`` by default; empty or
``off``: PyPy's own size), unless ``PYPY_GC_NURSERY`` is set already. CPython is left alone.
"""
from __future__ import annotations

import os
import platform
import sys
from typing import Mapping, Sequence

NURSERY = "32MB"
ENV = "PYPY_GC_NURSERY"
OURS = "DATAPLANE_PYPY_NURSERY"


def with_nursery(environ: Mapping[str, str]) -> dict[str, str] | None:
    """``environ`` with ``PYPY_GC_NURSERY`` set as the command would set it, or None when it sets
    nothing (the variable already set, or ``DATAPLANE_PYPY_NURSERY`` empty or ``off``)."""
    size = environ.get(OURS, NURSERY).strip()
    if ENV in environ or not size or size.lower() == "off":
        return None
    env = dict(environ)
    env[ENV] = size
    return env


def relaunch_args(argv: Sequence[str], environ: Mapping[str, str], *, pypy: bool,
                  executable: str) -> tuple[list[str], dict[str, str]] | None:
    """The command line and environment to start this command again with, or None to go on.

    ``argv`` is ``sys.argv``: its first item is the console script, or ``.../dataplane/__main__.py``
    under ``-m dataplane`` (run again as ``-m dataplane``, not as a file, which would put the
    package's own folder first on the path)."""
    env = with_nursery(environ)
    if not pypy or env is None or not argv:
        return None
    if not argv[0] or argv[0].startswith("-"):
        return None     # ``pypy3 -c "...run()"``: the code is not in argv (3.9 has no orig_argv)
    head = argv[0]
    if os.path.basename(head) == "__main__.py" and os.path.basename(os.path.dirname(head)) == "dataplane":
        start = [executable, "-m", "dataplane"]
    else:
        start = [executable, head]
    return start + list(argv[1:]), env


def relaunch_with_nursery() -> None:
    """Start the command again under PyPy with ``PYPY_GC_NURSERY`` set (see the module); returns
    only where nothing is to be done (CPython, the variable already set)."""
    args = relaunch_args(sys.argv, os.environ, pypy=platform.python_implementation() == "PyPy",
                         executable=sys.executable)
    if args is None or not os.path.isfile(sys.argv[0]):
        return      # (an argv[0] that is no file: a caller that set sys.argv itself)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(args[0][0], args[0], args[1])
