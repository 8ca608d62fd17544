"""Re-measure the figures the documentation (README.md, docs/) quotes, by running the commands that make them.

    python tools/readme_figures.py                   # run every measurement; print each figure and its command
    python tools/readme_figures.py --check           # ... and compare with the text; exit 1 on a difference
    python tools/readme_figures.py --only allreduce,incast     # some (a name takes those named after it too)
    python tools/readme_figures.py --list            # the measurements and figures, nothing run
    python tools/readme_figures.py --check --update  # ... and write the measured values into the text

Each figure is found in its document by a pattern (over the text with its runs of white space
made one space), whose groups are the quoted values, and the measurement formats its own values
the way the text writes them. Simulated figures are deterministic (same command, same seed, same
bytes), so ``--check`` wants them exactly as quoted, to the digits quoted. A figure of how long a
command takes ("about 8 s of CPU time") is the CPU time of its process (and the processes it
waited for), which the load of a shared machine changes far less than its wall-clock time, and is
checked only within a factor of TIME_SPREAD either way; the other timings (benchmarks' rates, the
PyPy and batch-engine tables, compile times, wall-clock times) are left out.
So are figures from runs that take hours (the k=16 allreduce), from p4c's corpus (conformance),
from a real-time run, and the profile sweep tables of docs/ecn.md.

The full set takes about 3 minutes of CPU time (10 of wall clock on a loaded 2-core machine): each
measurement once, in a process of its own, with this checkout's package; ``bench-parallel`` needs
``mpiexec`` and is skipped without it. ``--save FILE`` keeps the results and ``--load FILE`` checks
edited text against them without measuring again.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))     # this checkout's package, whatever is installed
sys.path.insert(0, str(Path(__file__).resolve().parent))     # the table beside this file, however it is loaded

from readme_figures_table import MEASUREMENTS, Figure, Measurement, figures, normalised  # noqa: E402

TIME_SPREAD = 2.0


@dataclass
class Result:
    data: Any
    wall_s: float
    cpu_s: float     # user + system time of the command and the processes it waited for
    command: str = ""   # as run (a saved result is used again only for the same command)


# ---- running ----------------------------------------------------------------------------------------------

def run(m: Measurement) -> Result:
    """Run ``m`` in a temporary folder with this checkout's package; its parsed result."""
    from dataplane.resources import self_command

    with tempfile.TemporaryDirectory(prefix="readme-figures-") as tmp:
        out = Path(tmp) / "out"
        if m.tool:
            argv = [sys.executable, str(ROOT / m.argv[0]), *m.argv[1:]]
        else:
            argv = self_command(*m.argv, *(("--out", str(out)) if m.reads not in ("json", "stdout") else ()))
        env = {**os.environ, "PYTHONPATH": str(ROOT), "DATAPLANE_PROGRESS": "0"}
        start, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.run(argv, cwd=tmp, capture_output=True, text=True, env=env)
        wall, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        if proc.returncode != 0:
            raise RuntimeError(f"{m.shown()} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
        if m.reads == "stdout":
            data: Any = proc.stdout
        elif m.reads == "json":   # the whole output, or its last line (after a tool's own lines)
            try:
                data = json.loads(proc.stdout)
            except json.JSONDecodeError:
                data = json.loads(proc.stdout.strip().splitlines()[-1])
        else:
            data = json.loads((out / m.reads).read_text())
    return Result(data, wall, cpu, m.shown())


def quoted(fig: Figure) -> Optional[list[str]]:
    """The values ``fig`` finds in its document, or None where its pattern no longer matches."""
    m = re.search(fig.pattern, normalised((ROOT / fig.doc).read_text()))
    return list(m.groups()) if m else None


def update(fig: Figure, measured: list[str]) -> bool:
    """Write ``measured`` in place of the values ``fig`` quotes, in its document (the pattern's
    spaces match any run of white space there, line breaks included); False if not found."""
    path = ROOT / fig.doc
    text = path.read_text()
    m = re.search(fig.pattern.replace(" ", r"\s+"), text)
    if m is None or len(measured) != len(m.groups()):
        return False
    for i in range(len(measured), 0, -1):    # from the last, so the earlier spans stay put
        text = text[:m.start(i)] + measured[i - 1] + text[m.end(i):]
    path.write_text(text)
    return True


def compare(fig: Figure, results: dict[str, Result]) -> tuple[list[str], Optional[list[str]], bool]:
    """(measured, quoted, agrees) for one figure, from the results of its measurements by name."""
    text = quoted(fig)
    if fig.cpu:
        cpu = results[fig.measurement].cpu_s
        measured = [f"{cpu:.0f}"]
        ok = text is not None and all(float(q) / TIME_SPREAD <= cpu <= float(q) * TIME_SPREAD for q in text)
        return measured, text, ok
    data = results[fig.measurement].data if not fig.uses else {n: results[n].data for n in fig.measurements()}
    measured = fig.values(data)
    return measured, text, text == measured


def measure(needed: set[str], saved: dict[str, Result]) -> dict[str, Result]:
    """The results of the ``needed`` measurements: from ``saved`` where it has them, else run."""
    results: dict[str, Result] = {}
    for m in MEASUREMENTS:
        if m.name not in needed:
            continue
        if m.name in saved and saved[m.name].command == m.shown():
            results[m.name] = saved[m.name]
            continue
        missing = [p for p in m.needs if shutil.which(p) is None]
        if missing:
            print(f"skipped {m.name}: needs {', '.join(missing)}", flush=True)
            continue
        print(f"running {m.name}: {m.shown()}", flush=True)
        results[m.name] = r = run(m)
        print(f"   {r.cpu_s:.1f} s of CPU time, {r.wall_s:.1f} s of wall clock", flush=True)
    return results


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with the documents; exit 1 on a difference")
    ap.add_argument("--only", default="", help="comma list of measurement names (see --list)")
    ap.add_argument("--list", action="store_true", help="list measurements and figures; run nothing")
    ap.add_argument("--save", type=Path, help="write the measurements' results here (JSON)")
    ap.add_argument("--load", type=Path, help="take results from a --save file instead of running them again "
                                               "(to check edited text without measuring again)")
    ap.add_argument("--update", action="store_true", help="with --check: write each differing simulated figure's "
                                                          "measured values into its document")
    args = ap.parse_args(argv)
    asked = {n.strip() for n in args.only.split(",") if n.strip()}
    known = {m.name for m in MEASUREMENTS}
    # a name picks its measurement and those named after it ("incast" its seeds and profiles too)
    chosen = {k for k in known for n in asked if k == n or k.startswith(f"{n}-")}
    unknown = {n for n in asked if not any(k == n or k.startswith(f"{n}-") for k in known)}
    if unknown:
        ap.error(f"unknown measurement(s): {', '.join(sorted(unknown))} (known: {', '.join(sorted(known))})")
    figs = figures()
    if args.list:
        for m in MEASUREMENTS:
            print(f"{m.name}: {m.shown()}")
            for f in figs:
                if f.measurement == m.name:
                    print(f"    {f.doc}: {f.what}{' (CPU time)' if f.cpu else ''}")
        return 0
    figs = [f for f in figs if not chosen or set(f.measurements()) & chosen]
    needed = {name for f in figs for name in f.measurements()}   # a range over seeds needs every seed's run
    saved = {name: Result(**r) for name, r in json.loads(args.load.read_text()).items()} if args.load else {}
    results = measure(needed, saved)
    if args.save:
        args.save.write_text(json.dumps({name: vars(r) for name, r in results.items()}))
    failed = 0
    for m in MEASUREMENTS:
        group = [f for f in figs if f.measurement == m.name and set(f.measurements()) <= set(results)]
        if group:
            print(f"== {m.shown()}")
        for fig in group:
            measured, text, ok = compare(fig, results)
            if not args.check:
                print(f"   {fig.doc}: {fig.what}: {' | '.join(measured)}")
            elif ok:
                print(f"ok    {fig.doc}: {fig.what}: {' | '.join(measured)}")
            else:
                failed += 1
                where = "not found: the text changed (update the pattern here)" if text is None else " | ".join(text)
                kind = f"CPU time, within {TIME_SPREAD:g}x" if fig.cpu else "exact"
                print(f"DIFF  {fig.doc}: {fig.what} ({kind})\n      measured: {' | '.join(measured)}\n"
                      f"      quoted:   {where}")
                if args.update and not fig.cpu and text is not None:
                    print(f"      {'updated' if update(fig, measured) else 'NOT updated: not found as written'}")
    if args.check:
        print(f"{failed} figure(s) differ" if failed else "every figure checked agrees")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
