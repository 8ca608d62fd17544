"""The ``--repo DIR`` mode of tools/conformance.py: any checkout's P4 programs, compiled and loaded.

A user points it at their own repository with the include paths and defines its build passes
to p4c (``-I``, ``-D``, as ``dataplane compile`` takes them). A program is a ``.p4`` file that
instantiates a package as ``main`` (the other ``.p4`` files are what programs include). Each
program is compiled; one that compiles and whose ``main`` is a package this emulator runs is
loaded as a ``Switch``; one of an architecture with P4Info has its P4Info built, and compared
with a golden P4Info beside it (``NAME.p4info.pb.txt``, ``NAME.p4info.txtpb``,
``NAME.p4info.txt``) when the repository commits one, ignoring the order of repeated fields
(and any field ``--p4info-ignore`` names: a P4Info committed by an older p4c lacks the fields
newer ones write, such as ``tables.initial_default_action``, p4c's since August 2024).
The report gives, per top folder of the repository, how many programs compiled, loaded (or
were refused with a clear message) and wrote P4Info equal to the golden, with the failures by
category.
"""
from __future__ import annotations

import collections
import os
import re
from pathlib import Path
from typing import Callable

_MAIN = re.compile(r"\)\s*main\s*;")
_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
_SKIP_DIRS = {".git", "build", "node_modules", "__pycache__", ".tox", "venv"}
_GOLDEN_SUFFIXES = (".p4info.pb.txt", ".p4info.txtpb", ".p4info.txt")


def find_programs(root: Path) -> list[Path]:
    """Every ``.p4`` file under ``root`` that no other one includes and that instantiates ``main``
    itself or through what it includes (DASH's ``dash_pipeline.p4`` includes the file that
    instantiates the package of the target a define picks); sorted, build folders skipped."""
    mains: dict[Path, bool] = {}
    includes: dict[Path, list[Path]] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
        for name in sorted(files):
            if name.endswith(".p4"):
                path = (Path(folder) / name).resolve()
                try:
                    text = path.read_text(errors="replace")
                except OSError:
                    continue
                mains[path] = bool(_MAIN.search(text))
                includes[path] = [(path.parent / inc).resolve() for inc in _INCLUDE.findall(text)]
    included = {inc for incs in includes.values() for inc in incs}

    def has_main(path: Path, seen: set[Path]) -> bool:
        if path in seen or path not in mains:
            return False
        seen.add(path)
        return mains[path] or any(has_main(inc, seen) for inc in includes[path])

    return sorted(p for p in mains if p not in included and has_main(p, set()))


def golden_p4info(path: Path) -> Path | None:
    """A P4Info file the repository commits for ``path``, if any."""
    stem = path.with_suffix("")
    for suffix in _GOLDEN_SUFFIXES:
        candidate = Path(str(stem) + suffix)
        if candidate.is_file():
            return candidate
    return None


def run_repo(path: str, out: dict, options: dict, category: Callable[[str], str]) -> dict:
    """Compile, load and describe one program; fill ``out`` (``status`` is the compile's; ``load``
    and ``p4info`` say how far it went). Never raises."""
    from dataplane.control.switch import DEVICES, Switch
    from dataplane.errors import CompileError, DataplaneError
    from dataplane.lang.frontend import compile_file

    include_dirs = [Path(d) for d in options.get("include_dirs", ())]
    defines = dict(options.get("defines", {}))
    try:
        program = compile_file(path, include_dirs=include_dirs, defines=defines).program
    except CompileError as err:
        first = next((d for d in err.diagnostics if d.severity == "error"), err.diagnostics[0])
        out.update(status="fail", category="compile: " + category(first.message), message=str(first.span) + ": " +
                   first.message)
        return out
    out.update(status="pass", load="skip", p4info="skip")
    arch = getattr(program, "architecture", None)
    out["load_arch"] = arch
    if program.package is not None and arch in DEVICES:
        try:
            Switch(program, name="s1")
            out["load"] = "pass"
        except DataplaneError as err:
            out.update(load="refused", load_message=str(err)[:300])
        except Exception as err:   # a traceback a user would see
            out.update(load="fail", load_message=f"{type(err).__name__}: {err!s:.200}")
    _p4info(Path(path), program, out, category, list(options.get("p4info_ignore", ())))
    return out


def _p4info(path: Path, program, out: dict, category: Callable[[str], str], ignore: list[str]) -> None:
    """Build the P4Info of a loaded program; compare it with a golden one committed beside it."""
    try:
        from p4info_compare import compare_text

        from dataplane.control.p4info import P4InfoError, build_p4info
    except ImportError:
        return
    if program.package is None or program.architecture in ("ebpf", "xdp"):
        return
    try:
        info = build_p4info(program)
    except P4InfoError as err:
        out.update(p4info="fail", p4info_message="p4info error: " + category(str(err)))
        return
    except Exception as err:
        out.update(p4info="fail", p4info_message=f"{type(err).__name__}: {err!s:.200}")
        return
    golden = golden_p4info(path)
    if golden is None:
        out["p4info"] = "built"
        return
    text = golden.read_text()
    if ignore:
        from google.protobuf import text_format
        from p4.config.v1 import p4info_pb2

        expected = p4info_pb2.P4Info()
        try:
            text_format.Parse(text, expected)
        except text_format.ParseError as err:
            out.update(p4info="fail", p4info_message=f"golden {golden.name} does not parse: {err}"[:300])
            return
        try:
            for field in ignore:
                _clear(info, field.split("."))
                _clear(expected, field.split("."))
        except ValueError as err:   # no such field
            out.update(p4info="fail", p4info_message=f"--p4info-ignore: {err}"[:300])
            return
        text = text_format.MessageToString(expected)
    try:
        diff = compare_text(info, text)
    except Exception as err:   # a golden file of another P4Info version
        out.update(p4info="fail", p4info_message=f"golden {golden.name}: {type(err).__name__}: {err!s:.200}")
        return
    out["p4info_golden"] = str(golden)
    if diff is None:
        out["p4info"] = "identical"
    else:
        out.update(p4info="different", p4info_message=f"{diff[0]}: {diff[1]}"[:300])


def _clear(msg, path: list[str]) -> None:
    """Clear field ``path`` (``tables.initial_default_action``) in ``msg`` and its repeated parts."""
    name, rest = path[0], path[1:]
    if not rest:
        msg.ClearField(name)
        return
    value = getattr(msg, name)
    for item in (value if hasattr(value, "__len__") and not hasattr(value, "ListFields") else [value]):
        _clear(item, rest)


def repo_table(rs: list[dict], root: Path, list_failures: bool) -> list[str]:
    """Per top folder: programs, compiled, loaded (+ refused), P4Info built and identical."""
    def top(r: dict) -> str:
        rel = Path(r["path"]).relative_to(root)
        return rel.parts[0] if len(rel.parts) > 1 else "."

    groups = collections.defaultdict(list)
    for r in rs:
        groups[top(r)].append(r)
    head = f"{'folder':<28}{'programs':>9}{'compiled':>9}{'loaded':>8}{'refused':>8}{'p4info':>8}{'golden=':>8}"
    lines = [head]
    for name in sorted(groups) + ["(all)"]:
        g = rs if name == "(all)" else groups[name]
        comp = sum(r["status"] == "pass" for r in g)
        loaded = sum(r.get("load") == "pass" for r in g)
        refused = sum(r.get("load") == "refused" for r in g)
        built = sum(r.get("p4info") in ("built", "identical", "different") for r in g)
        golden = [r for r in g if r.get("p4info") in ("identical", "different")]
        same = sum(r.get("p4info") == "identical" for r in golden)
        lines.append(f"{name[:27]:<28}{len(g):>9}{comp:>9}{loaded:>8}{refused:>8}{built:>8}"
                     f"{f'{same}/{len(golden)}':>8}")
    fails = [r for r in rs if r["status"] != "pass"]
    if fails:
        lines.append("-- compile failures by category --")
        for cat, n in collections.Counter(r["category"] for r in fails).most_common():
            lines.append(f"{n:>6}  {cat}")
            if list_failures:
                lines += [f"          {Path(r['path']).relative_to(root)}: {r.get('message', '')[:160]}"
                          for r in fails if r["category"] == cat]
    for key, label, bad in (("load", "load", ("fail", "refused")), ("p4info", "P4Info", ("fail", "different"))):
        hits = [r for r in rs if r.get(key) in bad]
        if hits:
            lines.append(f"-- {label}: not loaded or not equal --")
            for r in hits:
                lines.append(f"          {Path(r['path']).relative_to(root)}: [{r[key]}] "
                             f"{r.get(key + '_message', '')[:160]}")
    return lines
