"""The ``load`` suite of tools/conformance.py: every sample that compiles is loaded as a Switch.

``compile --check`` stops at the front end; a ``Switch`` goes on to generate the engine's code,
make the extern instances and the tables and install const entries. A sample counts when it
compiles here and its ``main`` package is one of the architectures in
``dataplane.control.switch.DEVICES``. It passes when the switch loads, or when loading is refused
with a ``DataplaneError`` (a clear message naming the construct; counted as "refused", listed
with its message); any other exception fails, grouped by its type and the innermost frame of
dataplane's own code, which is where the fix goes.
"""
from __future__ import annotations

import collections
import traceback
from pathlib import Path
from typing import Callable


def run_load(path: str, out: dict, category: Callable[[str], str]) -> dict:
    """Compile ``path`` and load it as a Switch; fill ``out`` with status, category, message and
    ``load_arch`` (the architecture of its main package); ``category`` groups refusal messages."""
    from dataplane.control.switch import DEVICES, Switch
    from dataplane.errors import CompileError, DataplaneError, InternalError
    from dataplane.lang.frontend import compile_file

    try:
        program = compile_file(path).program
    except CompileError:
        out.update(status="skip", category="not compiled", message="")
        return out
    arch = getattr(program, "architecture", None)
    if program.package is None or arch not in DEVICES:
        out.update(status="skip", category="no package this emulator runs", message=str(arch))
        return out
    out["load_arch"] = arch
    try:
        Switch(program, name="s1")
    except InternalError as err:
        out.update(status="fail", category="internal error", message=str(err)[:300])
    except DataplaneError as err:
        message = str(err)
        # The program's own path leads many messages; without it alike refusals group together.
        bare = message[len(path):].lstrip(":0123456789 ") if message.startswith(path) else message
        out.update(status="refused", category="refused: " + category(bare), message=message[:300])
    except RecursionError as err:
        out.update(status="fail", category="RecursionError", message=str(err)[:200])
    except Exception as err:  # a traceback a user would see: what this suite hunts
        out.update(status="fail", category=f"{type(err).__name__} at {_dataplane_frame(err)}",
                   message=f"{err!s:.200}")
    else:
        out.update(status="pass")
    return out


def _dataplane_frame(err: BaseException) -> str:
    """``module.py:function`` of the innermost frame in dataplane's own code (else the innermost)."""
    from dataplane.resources import package_path

    frames = traceback.extract_tb(err.__traceback__)
    ours = [f for f in frames if package_path(f.filename)]
    f = (ours or frames)[-1]
    return f"{Path(f.filename).name}:{f.name}"


def load_table(rs: list[dict], list_failures: bool) -> list[str]:
    """Loaded / refused / failed per architecture of the samples that compile with a runnable package."""
    counted = [r for r in rs if r["status"] != "skip"]
    lines = [f"{'architecture':<14}{'loaded':>8}{'refused':>9}{'failed':>8}{'total':>8}{'rate':>8}"]
    by_arch = collections.defaultdict(list)
    for r in counted:
        by_arch[r.get("load_arch", r["arch"])].append(r)
    for arch in sorted(by_arch, key=lambda a: (-len(by_arch[a]), a)):
        n = len(by_arch[arch])
        ok = sum(r["status"] == "pass" for r in by_arch[arch])
        ref = sum(r["status"] == "refused" for r in by_arch[arch])
        lines.append(f"{arch:<14}{ok:>8}{ref:>9}{n - ok - ref:>8}{n:>8}{(ok + ref) / n:>8.1%}")
    skips = collections.Counter(r["category"] for r in rs if r["status"] == "skip")
    lines.append("not counted: " + ", ".join(f"{n} {cat}" for cat, n in skips.most_common()) if skips else "")
    for arch in sorted(by_arch, key=lambda a: (-len(by_arch[a]), a)):
        for label, wanted in (("failures", "fail"), ("refusals", "refused")):
            hits = [r for r in by_arch[arch] if r["status"] == wanted]
            if not hits:
                continue
            lines.append(f"-- load/{arch} {label} by category --")
            for cat, n in collections.Counter(r["category"] for r in hits).most_common():
                lines.append(f"{n:>6}  {cat}")
                if list_failures:
                    lines += [f"          {Path(r['path']).name}: {r.get('message', '')[:140]}"
                              for r in hits if r["category"] == cat]
    return lines
