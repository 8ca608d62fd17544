"""The ``batch`` suite of tools/conformance.py: p4c's STF samples on the batch engine.

For every STF sample that passes today on the per-packet engine: does the batch engine
accept the program, and if it does, does the STF run give the same verdict, the same
outputs on every port and the same counters? Status ``pass`` (accepted and equal),
``refused`` (the batch engine's reason, the construct named, is the category), ``skip``
(the per-packet engine does not pass the sample today) or ``fail`` (accepted, but some
difference: the equality contract is broken).
"""
from __future__ import annotations

import collections
import re
from pathlib import Path

_LOCATED = re.compile(r"^\S+\.p4(:\d+:\d+)?: ")


def _state(sw) -> tuple:
    counters = {q: (list(o.packets), list(o.bytes)) for q, o in sw.dp.instances.items() if hasattr(o, "packets")}
    direct = {q: [(e.value.packets, e.value.bytes) for e in t.match.entries()] for q, t in sw.dp.tables.items()}
    return counters, direct


def run_batch(path: str, out: dict) -> dict:
    """Fill ``out`` for one sample (exceptions are the caller's: its categories apply)."""
    from dataplane.control.switch import Switch
    from dataplane.engine.batch import BatchUnsupported
    from dataplane.engine.batch.select import batch_pipeline
    from dataplane.errors import DataplaneError
    from dataplane.lang.frontend import compile_file
    from dataplane.testing.stf import load_stf
    from dataplane.testing.stf_runner import run_stf

    stf = str(Path(path).with_suffix(".stf"))
    try:
        program = compile_file(path).program
        want_sw = Switch(program, name="s1")
        want = run_stf(want_sw, load_stf(stf), stf)
    except DataplaneError:
        want = None
    if want is None or not want.passed:
        out.update(status="skip", category="the per-packet engine does not pass it today", message="")
        return out
    got_sw = Switch(program, name="s1")
    try:
        batch_pipeline(got_sw.dp)
    except BatchUnsupported as err:
        reason = _LOCATED.sub("", str(err))
        out.update(status="refused", category=reason.split(" (")[0].split("'")[0].strip()[:70], message=str(err))
        return out
    got = run_stf(got_sw, load_stf(stf), stf, engine="batch")
    if (got.passed, got.outputs) != (want.passed, want.outputs):
        out.update(status="fail", category="outputs differ", message=(got.failures or ["(verdicts equal)"])[0][:200])
    elif _state(got_sw) != _state(want_sw):
        out.update(status="fail", category="counters differ", message="")
    else:
        out.update(status="pass")
    return out


def batch_table(rs: list[dict], list_failures: bool) -> list[str]:
    lines = [f"{'architecture':<14}{'STF pass':>10}{'accepted':>10}{'agree':>8}{'differ':>8}{'refused':>9}"]
    by_arch = collections.defaultdict(list)
    for r in rs:
        by_arch[r["arch"]].append(r)
    for arch in sorted(by_arch, key=lambda a: (-len(by_arch[a]), a)):
        a = by_arch[arch]
        n = {s: sum(r["status"] == s for r in a) for s in ("pass", "fail", "refused", "skip")}
        passing = len(a) - n["skip"]
        lines.append(f"{arch:<14}{passing:>10}{n['pass'] + n['fail']:>10}{n['pass']:>8}{n['fail']:>8}{n['refused']:>9}")
    for status, title in (("fail", "accepted but different (the contract is broken)"), ("refused", "refused, by reason")):
        picked = [r for r in rs if r["status"] == status]
        if not picked:
            continue
        lines.append(f"-- batch: {title} --")
        for cat, k in collections.Counter(r["category"] for r in picked).most_common():
            lines.append(f"{k:>6}  {cat}")
            if list_failures or status == "fail":
                for r in picked:
                    if r["category"] == cat:
                        lines.append(f"          {Path(r['path']).name}: {r.get('message', '')[:140]}")
    return lines
