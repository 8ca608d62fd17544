"""The text report of tools/conformance.py: per suite and architecture, passed and failed, the
failures grouped by a category (the message with names and numbers taken out), and for error
programs the first error p4c itself prints."""
from __future__ import annotations

import collections
import re
import sys
from pathlib import Path

_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`")
_NUMBER = re.compile(r"\b\d+\b")
_LOCATION = re.compile(r"^\S+:\d+(:\d+)?: (error( \[[a-z-]+\])?: )?")


def category(message: str) -> str:
    """A message with names and numbers taken out, so that alike failures group together."""
    first = _LOCATION.sub("", message.splitlines()[0] if message else "")
    return _NUMBER.sub("N", _QUOTED.sub("'…'", first))[:90]


def p4c_reason(p4c: Path, path: str) -> str:
    """The first error p4c prints for an error program (its expected stderr), as one line."""
    stderr = p4c / "testdata" / "p4_16_errors_outputs" / (Path(path).name + "-stderr")
    if not stderr.is_file():
        return "(no expected stderr)"
    for line in stderr.read_text(errors="replace").splitlines():
        if "error" in line.lower():
            return _LOCATION.sub("", line.strip())[:120]
    return "(p4c's expected output names no error)"


def report(results: list[dict], p4c: Path, list_failures: bool) -> str:
    lines = []
    by_suite = collections.defaultdict(list)
    for r in results:
        by_suite[r["suite"]].append(r)
    for suite in ("stf", "compile", "errors", "p4info", "load", "batch"):
        rs = by_suite.get(suite)
        if not rs:
            continue
        lines.append(f"\n== {suite} ==")
        if suite == "batch":
            sys.path.insert(0, str(Path(__file__).resolve().parent))
            from conformance_batch import batch_table

            lines += batch_table(rs, list_failures)
            continue
        if suite == "load":
            sys.path.insert(0, str(Path(__file__).resolve().parent))
            from conformance_load import load_table

            lines += load_table(rs, list_failures)
            continue
        if suite == "p4info":
            lines += _p4info_table(rs)
        if suite != "p4info":
            lines.append(f"{'architecture':<14}{'passed':>8}{'failed':>8}{'total':>8}{'rate':>8}")
        by_arch = collections.defaultdict(list)
        for r in rs:
            by_arch[r["arch"]].append(r)
        for arch in sorted(by_arch, key=lambda a: (-len(by_arch[a]), a)):
            ok = sum(r["status"] == "pass" for r in by_arch[arch])
            n = len(by_arch[arch])
            if suite != "p4info":
                lines.append(f"{arch:<14}{ok:>8}{n - ok:>8}{n:>8}{ok / n:>8.1%}")
        for arch in sorted(by_arch, key=lambda a: (-len(by_arch[a]), a)):
            fails = [r for r in by_arch[arch] if r["status"] != "pass"]
            if not fails:
                continue
            lines.append(f"-- {suite}/{arch} failures by category --")
            cats = collections.Counter(r["category"] for r in fails)
            for cat, n in cats.most_common():
                lines.append(f"{n:>6}  {cat}")
                if list_failures:
                    for r in fails:
                        if r["category"] == cat:
                            extra = f"  [p4c: {p4c_reason(p4c, r['path'])}]" if suite == "errors" else ""
                            lines.append(f"          {Path(r['path']).name}: {r.get('message', '')[:140]}{extra}")
    warned = [w for r in by_suite.get("compile", ()) for w in r.get("warnings", ())]
    if warned:
        codes = collections.Counter(re.search(r"\[([a-z-]+)\]", w).group(1) for w in warned)
        lines.append(f"\ncompile warnings: {len(warned)} in {sum(bool(r.get('warnings')) for r in by_suite['compile'])} "
                     "samples (" + ", ".join(f"{c} {n}" for c, n in codes.most_common()) + ")")
    ok = sum(r["status"] in ("pass", "refused") for r in results)
    skipped = sum(r["status"] == "skip" for r in results)
    lines.append(f"\n{ok} passed, {len(results) - ok - skipped} failed" + (f", {skipped} not compiled or not run" if skipped else ""))
    return "\n".join(lines)


def _p4info_table(rs: list[dict]) -> list[str]:
    """Identical / different / not compiled per architecture, and the figure: identical of compiled."""
    lines = [f"{'architecture':<14}{'identical':>10}{'different':>10}{'not comp.':>10}{'rate':>8}"]
    by_arch = collections.defaultdict(list)
    for r in rs:
        by_arch[r["arch"]].append(r)
    for arch in sorted(by_arch, key=lambda a: (-len(by_arch[a]), a)):
        same = sum(r["status"] == "pass" for r in by_arch[arch])
        skip = sum(r["status"] == "skip" for r in by_arch[arch])
        diff = len(by_arch[arch]) - same - skip
        rate = same / (same + diff) if same + diff else 0.0
        lines.append(f"{arch:<14}{same:>10}{diff:>10}{skip:>10}{rate:>8.1%}")
    same = sum(r["status"] == "pass" for r in rs)
    compiled = sum(r["status"] != "skip" for r in rs)
    lines.append(f"P4Info identical to p4c's: {same}/{compiled} of the samples that compile here "
                 f"({same / compiled if compiled else 0:.1%})")
    return lines
