"""Conformance against p4c's own test corpus: its STF samples, its sample programs, its error programs.

Give it a checkout of p4c (``github:p4lang/p4c``); nothing of it is copied here. Three suites:

- ``stf``: every ``testdata/p4_16_samples/*-bmv2.stf`` with its ``.p4``, compiled and run through
  the STF runner as ``dataplane test`` runs it; also the eBPF drivers' samples (``*_ebpf.stf``,
  ``*_ebpf-kernel.stf``, ``*_ubpf.stf``), each on the architecture it includes (ebpf, xdp, ubpf);
- ``compile``: every ``testdata/p4_16_samples/*.p4`` through the front end (``compile --check``);
- ``errors``: every ``testdata/p4_16_errors/*.p4``, which p4c rejects: it passes when the front
  end rejects it too with a located error, or, since p4c's test driver writes P4Info and p4c
  makes some checks only then, when P4Info for it is refused with a located error; an
  acceptance is listed with p4c's own message;
- ``p4info``: every sample with p4c's ``p4_16_samples_outputs/NAME.p4info.txtpb``: the P4Info
  built here must equal it, ignoring the order of repeated fields (a failure's category is the
  first differing field); a sample that does not compile here is counted apart ("skip");
- ``batch``: every STF sample that passes today, on the batch (numpy) engine as well: accepted
  and equal (verdict, outputs, counters), or refused with the construct named
  (``conformance_batch.py``);
- ``load``: every sample that compiles here and whose ``main`` package is of an architecture this
  emulator runs, loaded as a ``Switch`` (code generation, externs, tables, const entries):
  loaded, refused with a clear ``DataplaneError``, or failed with a traceback
  (``conformance_load.py``).

Programs are grouped by the architecture they include (v1model, psa, pna, ebpf, ...). Each
program runs in a worker process with a time limit, so a hang or a crash is a result, not
the end of the run. It prints a table per suite and architecture, the failures by
category, and a closing ``N passed, M failed``.

    python tools/conformance.py P4C_DIR [--suite stf,compile,errors,p4info,load,batch] [--only GLOB] [--json OUT]
                                        [--jobs N] [--timeout S] [--list-failures]

``--repo DIR`` walks any checkout instead (``conformance_repo.py``): every ``.p4`` file that
instantiates ``main``, compiled with the include paths (``-I``) and defines (``-D``) given,
loaded, and its P4Info built and compared with a P4Info file committed beside it:

    python tools/conformance.py --repo CHECKOUT [-I DIR]... [-D NAME[=VALUE]]... [--only GLOB] [--json OUT]
"""
from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import sys
import time
import traceback
from pathlib import Path

from conformance_pool import Pool
from conformance_report import category, p4c_reason, report

from dataplane.progress import for_terminal

ARCH_INCLUDES = [  # (pattern in an #include <...>, architecture)
    (re.compile(r"^v1model\.p4$"), "v1model"),
    (re.compile(r"^(bmv2/)?psa\.p4$"), "psa"),
    (re.compile(r"^(dpdk/|tc/)?pna\.p4$"), "pna"),
    (re.compile(r"^ebpf_model\.p4$"), "ebpf"),
    (re.compile(r"^xdp_model\.p4$"), "xdp"),
    (re.compile(r"^ubpf_model\.p4$"), "ubpf"),
]
# STF samples and the drivers that run them: BMv2's simple_switch, p4c's eBPF test and kernel
# targets, its uBPF test runtime.
STF_GLOBS = ("*-bmv2.stf", "*_ebpf.stf", "*_ebpf-kernel.stf", "*_ubpf.stf")
_EBPF_STF = re.compile(r"_(ebpf|ebpf-kernel|ubpf)\.p4$")
_INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def architecture(path: Path, seen: set | None = None) -> str:
    """The architecture a program includes, following its quoted includes; ``core`` if none."""
    seen = set() if seen is None else seen
    if path in seen or not path.is_file():
        return "core"
    seen.add(path)
    text = path.read_text(errors="replace")
    for kind, name in _INCLUDE.findall(text):
        if kind == "<":
            for pattern, arch in ARCH_INCLUDES:
                if pattern.match(name):
                    return arch
        elif (path.parent / name).is_file():
            arch = architecture(path.parent / name, seen)
            if arch != "core":
                return arch
        else:   # a quoted include of an architecture file the search path finds
            for pattern, arch in ARCH_INCLUDES:
                if pattern.match(name):
                    return arch
    return "core"


def stf_architecture(path: str, included: str) -> str:
    """The architecture an STF sample runs on: an eBPF driver's sample (``*_ebpf``,
    ``*_ebpf-kernel``, ``*_ubpf``) on the eBPF-family architecture it includes, a PSA sample on
    PSA, every other BMv2 sample on simple_switch (v1model)."""
    if _EBPF_STF.search(path) and included in ("ebpf", "xdp", "ubpf"):
        return included
    return included if included == "psa" else "v1model"


# ---- one job, in a worker process -----------------------------------------------------------

def _diagnostic(err) -> tuple[str, bool]:
    """The first error of a CompileError as one line, and whether it names a file position."""
    first = next((d for d in err.diagnostics if d.severity == "error"), err.diagnostics[0])
    return first.message, bool(first.span.line)


def _set_field(ctx, value: int, width: int) -> int:
    """``extern_func(out d, s)``: d = s, as BMv2's Field::set stores it (truncated to d's width)."""
    return value & ((1 << width) - 1)


# p4c runs these STF samples on a BMv2 that loads an extern module of its own
# (testdata/extern_modules, simple_switch --load-modules); what each function does, written here.
TARGET_MODULES = {"extern-funcs-bmv2.p4": {"extern_func": _set_field}}


def run_job(job: tuple) -> dict:
    """Run one (suite, path[, options]) job; never raises."""
    suite, path = job[0], job[1]
    from dataplane.errors import CompileError, DataplaneError, InternalError

    out: dict = {"suite": suite, "path": path}
    try:
        if suite == "errors":
            from dataplane.lang.frontend import compile_file

            try:
                program = compile_file(path).program
            except CompileError as err:
                message, located = _diagnostic(err)
                out.update(status="pass" if located else "fail", message=message,
                           category="pass" if located else "rejected without a location")
                return out
            refused = _p4info_refusal(program)
            if refused:
                out.update(status="pass", message=refused, category="pass")
                return out
            out.update(status="fail", category="accepted", message="")
            return out
        from dataplane.lang.frontend import compile_file

        if suite == "repo":
            sys.path.insert(0, str(Path(__file__).resolve().parent))
            from conformance_repo import run_repo

            return run_repo(path, out, job[2], category)
        if suite == "p4info":
            return _run_p4info(path, out)
        if suite == "load":
            sys.path.insert(0, str(Path(__file__).resolve().parent))
            from conformance_load import run_load

            return run_load(path, out, category)
        if suite == "batch":
            sys.path.insert(0, str(Path(__file__).resolve().parent))
            from conformance_batch import run_batch

            return run_batch(path, out)
        t = time.perf_counter()
        result = compile_file(path)
        out["compile_s"] = round(time.perf_counter() - t, 3)
        if suite == "compile":
            out.update(status="pass", warnings=[f"{d.span}: [{d.code}] {d.message}" for d in result.warnings])
            return out
        from dataplane.control.switch import Switch
        from dataplane.testing.stf import load_stf
        from dataplane.testing.stf_runner import run_stf

        stf = str(Path(path).with_suffix(".stf"))
        sw = Switch(result.program, name="s1", extern_functions=TARGET_MODULES.get(Path(path).name))
        res = run_stf(sw, load_stf(stf), stf)
        if res.passed:
            out.update(status="pass")
        else:
            out.update(status="fail", category="packet mismatch", message=res.failures[0].splitlines()[0])
    except CompileError as err:
        message, _ = _diagnostic(err)
        out.update(status="fail", category="compile: " + category(message), message=message)
    except InternalError as err:
        out.update(status="fail", category="internal error", message=str(err))
    except DataplaneError as err:
        stage = "stf" if suite in ("stf", "batch") else "compile"
        out.update(status="fail", category=f"{stage}: " + category(str(err)), message=str(err))
    except RecursionError as err:
        out.update(status="fail", category="traceback: RecursionError", message=str(err)[:200])
    except Exception as err:  # a traceback a user would see: exactly what this suite hunts
        tb = traceback.extract_tb(err.__traceback__)[-1]
        where = f"{Path(tb.filename).name}:{tb.lineno}"
        out.update(status="fail", category=f"traceback: {type(err).__name__}", message=f"{err!s:.200} ({where})")
    return out


def _p4info_refusal(program) -> str:
    """p4c's test driver writes P4Info for every program, and p4c makes some checks only then
    (duplicate action names, action data types): the located P4Info error, or ''."""
    try:
        from dataplane.control.p4info import P4InfoError, build_p4info
    except ImportError:
        return ""
    try:
        build_p4info(program)
    except P4InfoError as err:
        return str(err) if getattr(err.span, "line", 0) else ""
    return ""


def _run_p4info(path: str, out: dict) -> dict:
    from dataplane.errors import CompileError
    from dataplane.lang.frontend import compile_file

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from p4info_compare import compare_text

    from dataplane.control.p4info import P4InfoError, build_p4info

    try:
        program = compile_file(path).program
    except CompileError as err:
        message, _ = _diagnostic(err)
        out.update(status="skip", category="not compiled: " + category(message), message=message)
        return out
    golden = _p4info_golden(path)
    try:
        info = build_p4info(program)
    except P4InfoError as err:
        out.update(status="fail", category="p4info error: " + category(str(err)), message=str(err))
        return out
    diff = compare_text(info, golden.read_text())
    if diff is None:
        out.update(status="pass")
    else:
        out.update(status="fail", category="different: " + diff[0], message=diff[1])
    return out


def _p4info_golden(path: str) -> Path:
    p = Path(path)
    return p.parent.parent / "p4_16_samples_outputs" / (p.name + ".p4info.txtpb")


# ---- the corpus ----------------------------------------------------------------------------------

def collect(p4c: Path, suites: list[str], only: str | None) -> list[tuple[str, str]]:
    samples = p4c / "testdata" / "p4_16_samples"
    jobs = []
    for suite in ("stf", "batch"):
        if suite in suites:
            stfs = sorted({p for pattern in STF_GLOBS for p in samples.glob(pattern)})
            jobs += [(suite, str(p.with_suffix(".p4"))) for p in stfs if p.with_suffix(".p4").is_file()]
    for suite in ("compile", "load"):
        if suite in suites:
            jobs += [(suite, str(p)) for p in sorted(samples.glob("*.p4"))]
    if "errors" in suites:
        jobs += [("errors", str(p)) for p in sorted((p4c / "testdata" / "p4_16_errors").glob("*.p4"))]
    if "p4info" in suites:
        jobs += [("p4info", str(p)) for p in sorted(samples.glob("*.p4")) if _p4info_golden(str(p)).is_file()]
    if only:
        jobs = [j for j in jobs if fnmatch.fnmatch(Path(j[1]).name, only)]
    return jobs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("p4c", type=Path, nargs="?", help="a checkout of github.com/p4lang/p4c")
    ap.add_argument("--repo", type=Path, metavar="DIR",
                    help="instead of p4c's corpus: every program (a .p4 file instantiating main) of this "
                         "checkout, compiled, loaded and its P4Info built (compared with one committed beside it)")
    ap.add_argument("-I", dest="include_dirs", action="append", default=[], type=Path, metavar="DIR",
                    help="with --repo: add a directory to the #include <...> search path (repeatable)")
    ap.add_argument("--p4info-ignore", action="append", default=[], metavar="FIELD",
                    help="with --repo: leave this P4Info field out of the comparison (e.g. "
                         "tables.initial_default_action, which p4c writes since August 2024)")
    ap.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]",
                    help="with --repo: define a preprocessor macro, as cpp's -D (repeatable)")
    ap.add_argument("--suite", default="stf,compile,errors", help="comma-separated: stf, compile, errors, p4info, load, batch")
    ap.add_argument("--only", help="only programs whose file name matches this glob")
    ap.add_argument("--arch", help="only programs of this architecture (v1model, psa, pna, ...)")
    ap.add_argument("--json", type=Path, help="write every result here")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per program")
    ap.add_argument("--list-failures", action="store_true", help="name every failing program under its category")
    args = ap.parse_args(argv)
    if args.repo is not None:
        return _main_repo(args)
    if args.p4c is None or not (args.p4c / "testdata" / "p4_16_samples").is_dir():
        print(f"error: {args.p4c} has no testdata/p4_16_samples: give a checkout of p4lang/p4c", file=sys.stderr)
        return 2
    suites = [s.strip() for s in args.suite.split(",") if s.strip()]
    bad = set(suites) - {"stf", "compile", "errors", "p4info", "load", "batch"}
    if bad:
        print(f"error: unknown suite(s) {', '.join(sorted(bad))}", file=sys.stderr)
        return 2
    jobs = collect(args.p4c, suites, args.only)
    arch = {path: architecture(Path(path)) for _, path in jobs}
    for suite, path in jobs:
        if suite in ("stf", "batch"):
            arch[path] = stf_architecture(path, arch[path])
    if args.arch:
        jobs = [j for j in jobs if arch[j[1]] == args.arch]
    start = time.monotonic()
    failed = [0]
    with for_terminal() as line:
        line.stage(f"conformance {','.join(suites)}", len(jobs), "programs")

        def progress(r: dict) -> None:
            failed[0] += r["status"] not in ("pass", "skip", "refused")
            line.what = f"conformance {','.join(suites)} ({failed[0]} failed)"
            line.update(line.done + 1)

        results = Pool(max(1, args.jobs), args.timeout, run_job).run(jobs, progress)
    for r in results:
        r["arch"] = arch[r["path"]]
    results.sort(key=lambda r: (r["suite"], r["path"]))
    print(report(results, args.p4c, args.list_failures))
    print(f"({time.monotonic() - start:.0f} s)")
    if args.json:
        for r in results:
            r["name"] = Path(r["path"]).name
            if r["suite"] == "errors" and r["status"] != "pass":
                r["p4c"] = p4c_reason(args.p4c, r["path"])
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0 if all(r["status"] in ("pass", "skip", "refused") for r in results) else 1


def _main_repo(args) -> int:
    """``--repo DIR``: compile, load and describe every program of a checkout (conformance_repo)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from conformance_repo import find_programs, repo_table

    root = args.repo.resolve()
    if not root.is_dir():
        print(f"error: {args.repo} is not a directory", file=sys.stderr)
        return 2
    missing = [d for d in args.include_dirs if not d.is_dir()]
    if missing:
        print(f"error: include directory {missing[0]} does not exist", file=sys.stderr)
        return 2
    defines = dict((d.split("=", 1) + ["1"])[:2] for d in args.defines)
    options = {"include_dirs": [str(d.resolve()) for d in args.include_dirs], "defines": defines,
               "p4info_ignore": args.p4info_ignore}
    programs = find_programs(root)
    if args.only:
        programs = [p for p in programs if fnmatch.fnmatch(p.name, args.only)]
    jobs = [("repo", str(p), options) for p in programs]
    start = time.monotonic()
    with for_terminal() as line:
        line.stage(f"conformance --repo {root.name}", len(jobs), "programs")

        def progress(r: dict) -> None:
            line.update(line.done + 1)

        results = Pool(max(1, args.jobs), args.timeout, run_job).run(jobs, progress)
    results.sort(key=lambda r: r["path"])
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    print("\n".join(repo_table(results, root, args.list_failures)))
    ok = sum(r["status"] == "pass" and r.get("load") != "fail" and r.get("p4info") not in ("fail", "different")
             for r in results)
    print(f"\n{ok} passed, {len(results) - ok} failed")
    print(f"({time.monotonic() - start:.0f} s)")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0 if ok == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
