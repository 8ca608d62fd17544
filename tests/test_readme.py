"""The documentation's examples work as written: README's and those of every page of the site
(docs/, in mkdocs.yml's order). Each document's `sh` blocks run as printed from a clone (a fresh
copy of this one for each document), in order, with the few overrides and omissions listed here;
its Python and YAML examples are what they say."""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from dataplane.resources import self_command
from dataplane.testing.forks import CommandForks

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"


def _nav_pages(nav: list) -> list[str]:
    pages: list[str] = []
    for entry in nav:
        for value in ([entry] if isinstance(entry, str) else entry.values()):
            pages += [value] if isinstance(value, str) else _nav_pages(value)
    return pages


def documents() -> list[Path]:
    """README, then the site's pages in the order of mkdocs.yml's nav (a page left out of the nav
    fails `mkdocs build --strict`, tests/test_site.py)."""
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"]
    return [README, *(DOCS / page for page in _nav_pages(nav))]


def _block(doc: Path, after: str, lang: str = "python") -> str:
    """The first ```lang block of ``doc`` after the text ``after``."""
    m = re.search(re.escape(after) + rf".*?```{lang}\n(.*?)```", doc.read_text(), re.S)
    assert m, f"{doc.relative_to(ROOT)} has no {lang} block after {after!r}"
    return m.group(1)


def test_python_example_runs_from_another_folder(tmp_path):
    """The Python API page's one-switch example runs from any folder (a built-in program by name)."""
    block = _block(DOCS / "api" / "index.md", "## One switch")
    r = subprocess.run([sys.executable, "-c", block], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr


def test_traffic_and_events_examples_are_the_files_in_examples():
    """The YAML examples of `dataplane run`'s page are examples/traffic.yaml and examples/failures.yaml, to
    the byte (the sh block on that page runs `dataplane run` with those files)."""
    run_page = DOCS / "commands" / "run.md"
    assert _block(run_page, "## Traffic", "yaml") == (ROOT / "examples" / "traffic.yaml").read_text()
    assert _block(run_page, "## Failures", "yaml") == (ROOT / "examples" / "failures.yaml").read_text()


def test_topology_example_is_the_file_in_topologies():
    """The topology page's YAML example is topologies/basic.yaml, to the byte."""
    assert _block(DOCS / "fabric" / "topologies.md", "`topologies/basic.yaml`", "yaml") == \
        (ROOT / "topologies" / "basic.yaml").read_text()


def test_traffic_and_events_examples_run():
    """`dataplane run` on the built-in leaf-spine takes the example files and does what they say."""
    r = subprocess.run(self_command("run", "--traffic", str(ROOT / "examples" / "traffic.yaml"),
                                    "--events", str(ROOT / "examples" / "failures.yaml"), "--duration", "5ms", "--json"),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert {"1000000 ns: link leaf1:p3<->spine1:p1 down", "2000000 ns: node spine2 down",
            "3000000 ns: link leaf1:p3<->spine1:p1 up"} <= set(data["log"])
    assert data["hosts"]["h1"]["sent"] >= 5 and data["hosts"]["h4"]["received"] > 0


@pytest.mark.no_pypy
def test_python_api_example_runs():
    """The Python API page's first block runs as written and prints what its comments say."""
    block = _block(DOCS / "api" / "index.md", "# Python API")
    r = subprocess.run([sys.executable, "-c", block], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "['ecmp_nhop', 'ipv4_lpm']"
    assert lines[1].startswith("['#include <core.p4>', '#include <v1model.p4>'")
    assert lines[2].startswith("{'sent': 3, 'received': 3, 'lost': 0")
    assert lines[3].startswith("pic ")


# ---- Install and Test: what CI runs -------------------------------------------------------------------------

def _without_comment(line: str) -> str:
    """``line`` up to a ``#`` that starts a shell comment (outside quotes, after white space)."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip()
    return line.rstrip()


def _sh_blocks(doc: Path = README) -> list[tuple[int, list[str]]]:
    """Every ```sh block of ``doc``: (its first line's number, its commands). A command is a line
    with its backslash continuations joined and its comment left out; blank lines and comment
    lines are not commands."""
    text = doc.read_text()
    blocks = []
    for m in re.finditer(r"```sh\n(.*?)```", text, re.S):
        joined = re.sub(r"\\\n\s*", " ", m.group(1))
        commands = [c for c in (_without_comment(line.strip()) for line in joined.splitlines()) if c]
        blocks.append((text[:m.start()].count("\n") + 2, commands))
    return blocks


def _section_block(title: str) -> list[str]:
    text = README.read_text()
    start = text.index(f"\n## {title}\n")
    first = next(line for line, _ in _sh_blocks() if line > text[:start].count("\n"))
    return dict(_sh_blocks())[first]


def test_install_is_two_commands_and_ci_runs_them():
    """Install gives two commands from a clone: one installs everything the tests need, one runs
    them; .ci/run installs the same extra (into the wheel of this clone that ``pip install .``
    would build, made once for its two environments) and runs exactly the command README's Test
    section gives."""
    install, test = _section_block("Install"), _section_block("Test")
    assert install == ["pip install '.[test]'", "pytest"]
    assert test == ["pytest"]
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()
          if line.strip() and not line.strip().startswith("#")]
    assert 'python -m pip wheel --quiet --no-deps --wheel-dir "$WHEELS" .' in ci
    assert 'python -m pip install --quiet "$WHEEL[test]"' in ci
    assert ci[-1] == test[0]     # the last thing CI does is README's test command


# ---- every sh block, as printed ------------------------------------------------------------------------------

#: Commands not run, by their start, and why.
NOT_RUN = {
    "pip install": "installs software (CI's own install is .ci/run's)",
    "sudo apt install": "installs system packages",
    "pytest": "the test suite itself",
    "ruff check": ".ci/run runs ruff before the tests (and --fix rewrites files)",
    "mypy": ".ci/run runs mypy before the tests",
    "python tools/roundtrip.py": "40 s; tests/ir/test_printer.py runs the same round trip",
    "pypy3 -m venv": "makes a PyPy environment; tests/test_pypy.py runs the suite under PyPy",
    ".venv-pypy/": "the PyPy environment above",
    "T=~/tutorials": "the rest of its block needs a checkout of p4lang/tutorials, which is not part of this repository",
    "mpiexec -n 64 --hostfile hosts": "a cluster of 64 ranks named in a hostfile",
    "dataplane serve programs/ipv4_router.p4 --grpc-addr 0.0.0.0:9559 --tls-cert":
        "needs a TLS certificate, key and CA of your own (tests/control/p4runtime/test_tls.py makes some)",
    "sudo dataplane": "needs root and runs until Ctrl-C (tests/net/netns runs real-time runs, exec and console as root)",
    "mkdocs": "tests/test_site.py builds the site (and serve would not return)",
}
#: Blocks whose every command is left out with the first's reason (the tutorials' controller session).
NOT_RUN_BLOCKS = ("T=~/tutorials",)

#: Commands run with a change, and why: each one is long as printed (the full-size runs are
#: tools/readme_figures.py's, which re-measures their figures) or is one of a suite tested elsewhere.
OVERRIDES = {
    "dataplane scenario pic --prefixes 1000,10000,100000,500000":
        ("dataplane scenario pic --prefixes 1000", "the 500,000-prefix sweep takes 15 s of CPU"),
    "dataplane scenario incast --senders 16 --mode all":
        ("dataplane scenario incast --senders 2 --mode all --transfer 1MB", "16 x 8 MB in four modes: 10 s of CPU"),
    "dataplane scenario allreduce --workers 8 --elements 1000000":
        ("dataplane scenario allreduce --workers 8 --elements 3200", "10^6 elements: 25 s of CPU"),
    "dataplane scenario vxlan":
        ("dataplane scenario vxlan --duration 20us", "500 us of traffic: 8 s of CPU"),
    "dataplane collective allreduce --sizes 1K:1M --factor 4":
        ("dataplane collective allreduce --sizes 1K:64K --factor 4", "up to 1 MB: 4 s of CPU"),
    "dataplane scenario training dp16 --what-if straggler":
        ("dataplane scenario training {tmp}/dp16-small.yaml --what-if straggler",
         "dp16's three steps of an 8M-parameter model: 50 s of CPU; here one step of 256K (SMALL_JOBS)"),
    "dataplane scenario training dp16":
        ("dataplane scenario training {tmp}/dp16-small.yaml --what-if degraded",
         "three steps under five faults: minutes; the small job under all five is 6 s of CPU, under one 2 s"),
    "dataplane scenario training 3d16 --what-if straggler":
        ("dataplane scenario training {tmp}/3d16-small.yaml --what-if straggler",
         "two steps of a 16M-parameter model on three dimensions of parallelism: minutes"),
    "dataplane scenario training dp128 --out out/":
        ("dataplane scenario training {tmp}/dp16-small.yaml --what-if straggler --out out/",
         "128 GPUs on a k=8 fat-tree under five faults: tens of minutes; here dp16's small job writes --out"),
    "dataplane scenario training my-job.yaml --topology leaf-spine --what-if degraded,flap --fault-link leaf1,spine1":
        ("dataplane scenario training {tmp}/dp16-small.yaml --topology leaf-spine --what-if degraded,flap "
         "--fault-link leaf1,spine1", "my-job.yaml stands for a job file of your own"),
    "dataplane scenario allreduce --topology fat-tree --k 4 --elements 100000":
        ("dataplane scenario allreduce --topology fat-tree --k 4 --elements 3200", "16 workers x 10^5 elements: 11 s of CPU"),
    "dataplane collective allreduce --algo ring --sizes 1K:16M --factor 4":
        ("dataplane collective allreduce --algo ring --sizes 1K:64K --factor 4", "up to 16 MB: 13 s of CPU"),
    "dataplane collective alltoall --algo direct --channels 4 --sizes 256M":
        ("dataplane collective alltoall --algo direct --channels 4 --sizes 64K", "256 MB on 16 ranks: 140 s of CPU"),
    "dataplane collective allreduce --algo ina --sizes 1K:16M --factor 4":
        ("dataplane collective allreduce --algo ina --sizes 1K:4K --factor 4", "up to 16 MB in the switches: over 4 minutes of CPU"),
    "dataplane collective allgather --topology leaf-spine --leaves 4 --spines 2 --gpus 8 --json":
        ("dataplane collective allgather --topology leaf-spine --leaves 4 --spines 2 --gpus 8 --json --sizes 8:64K",
         "the default sizes, up to 16 MB: 5 s of CPU"),
    # On ranks, every rank builds the whole 80-switch fabric: 2 ranks, not 4 (8 s of CPU a line).
    "dataplane run fat-tree/fat-tree-k8.yaml --traffic all-to-all --ranks 4 --out run":
        ("dataplane run fat-tree/fat-tree-k8.yaml --traffic all-to-all --ranks 2 --out run --duration 2us",
         "5 ms of 16,256 UDP flows: minutes"),
    "mpiexec -n 4 dataplane run fat-tree/fat-tree-k8.yaml --traffic all-to-all --out run":
        ("mpiexec -n 2 dataplane run fat-tree/fat-tree-k8.yaml --traffic all-to-all --out run --duration 2us",
         "the same run"),
    "dataplane scenario incast --senders 16 --ranks 2 --json":
        ("dataplane scenario incast --senders 2 --ranks 2 --json --transfer 1MB", "16 x 8 MB in four modes"),
    "dataplane scenario allreduce --topology fat-tree --k 8 --elements 100000 --ranks 4":
        ("dataplane scenario allreduce --topology fat-tree --k 8 --elements 32 --ranks 2", "128 workers x 10^5"),
}
#: A command naming one of these programs is skipped when it is not installed (the test extra's
#: ptf and Debian's Open MPI, which CI installs).
NEEDS = {"ptf": "ptf", "mpiexec": "mpiexec", "--ranks": "mpiexec"}
#: One test of the PTF suite (tests/ptf runs all 17 against the same server).
PTF_TEST = "router_test.ForwardTest"
#: The built-in jobs cut to one step of a 256K-parameter model on 1K tokens, as {tmp}/NAME-small.yaml
SMALL_JOBS = {
    "dp16": {"steps: 3": "steps: 1", "parameters: 8M": "parameters: 256K", "tokens: 16K": "tokens: 1K"},
    "3d16": {"steps: 2": "steps: 1", "parameters: 16M": "parameters: 256K", "tokens: 16K": "tokens: 1K"},
}


def _small_jobs(tmp: Path) -> None:
    for name, changes in SMALL_JOBS.items():
        text = (ROOT / "jobs" / f"{name}.yaml").read_text()
        for old, new in changes.items():
            assert old in text, f"jobs/{name}.yaml no longer has {old!r}: update SMALL_JOBS"
            text = text.replace(old, new)
        (tmp / f"{name}-small.yaml").write_text(text)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _clone(tmp: Path) -> Path:
    """A folder that reads as a fresh clone: the repository's top-level entries, linked."""
    clone = tmp / "clone"
    clone.mkdir()
    for entry in ROOT.iterdir():
        if not entry.name.startswith(".") and entry.name not in ("build", "out", "run", "replay") \
                and not entry.name.endswith(".egg-info"):
            (clone / entry.name).symlink_to(entry)
    return clone


def _shims(tmp: Path) -> Path:
    """``dataplane`` and ``python`` on PATH as this interpreter and this very package."""
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    for name, argv in (("dataplane", self_command()), ("python", [sys.executable])):
        (bin_dir / name).write_text("#!/bin/sh\nexec " + " ".join(shlex.quote(a) for a in argv) + ' "$@"\n')
        (bin_dir / name).chmod(0o755)
    return bin_dir


def _localised(command: str, tmp: Path, port: int) -> str:
    """Servers on a free port and their sockets and files in ``tmp``, not /tmp and 9559, which
    other tests (and the PyPy run beside this one) may hold; a served switch is named its port."""
    command = command.replace("/tmp/", f"{tmp}/").replace("127.0.0.1:9559", f"127.0.0.1:{port}")
    command = command.replace("{tmp}", str(tmp))
    if command.startswith("dataplane serve") and "--grpc-addr" not in command:
        command = command.replace("dataplane serve", f"dataplane serve --grpc-addr 127.0.0.1:{port}", 1)
    if command.startswith("ptf "):
        command += f" {PTF_TEST}"
    return command


def _start_server(command: str, cwd: Path, env: dict) -> tuple[subprocess.Popen | None, str]:
    """Start a `dataplane serve` line and wait for it to say it serves; (process, its output so far)."""
    proc = subprocess.Popen(["bash", "-c", f"exec {command.rstrip('&').strip()}"], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    said = ""
    deadline = time.monotonic() + 60
    while "serving" not in said and time.monotonic() < deadline and proc.poll() is None:
        said += proc.stdout.readline()
    if "serving" not in said:
        _stop(proc)
        return None, said + (proc.stdout.read() or "")
    return proc, said


#: Shell syntax that needs bash: such a command runs under it, as a process of its own.
SHELL = set("$|&;<>()`*~\\")


def _run(command: str, cwd: Path, env: dict, timeout: float = 120) -> tuple[int | None, str]:
    """(exit status, output) of ``command`` under bash; on timeout its whole process group (an
    mpiexec and its ranks) is killed and the status is None."""
    proc = subprocess.Popen(["bash", "-c", command], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        return proc.returncode, out
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        return None, f"{out}\n(killed after {timeout} s)"


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _left_out(block: list[str]) -> list[str]:
    """The commands of one sh block that are not run (NOT_RUN, NOT_RUN_BLOCKS)."""
    if block and block[0].startswith(NOT_RUN_BLOCKS):
        return block
    return [c for c in block if c.startswith(tuple(NOT_RUN))]


#: The documents with a command to run, by path from the repository's root (the tests' ids).
SH_DOCUMENTS = [str(d.relative_to(ROOT)) for d in documents()
                if any(len(_left_out(block)) < len(block) for _, block in _sh_blocks(d))]


@pytest.fixture(scope="module")
def runner(tmp_path_factory):
    """What every document's run shares: ``dataplane`` and ``python`` on PATH as this package and
    interpreter, the small job files, and the process that forks plain commands (``CommandForks``)."""
    tmp = tmp_path_factory.mktemp("docs-examples")
    bin_dir = _shims(tmp)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "DATAPLANE_PROGRESS": "0",
           "DATAPLANE_PLOTS": "1",     # the figures drawn, as on a user's machine (the session turns them off)
           # what `dataplane run --ranks` sets for Open MPI's mpiexec, for the line that calls it by hand
           # (docs/fabric/ranks.md: "by hand add --allow-run-as-root --oversubscribe")
           "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_rmaps_base_oversubscribe": "1"}
    forks = CommandForks(env)
    try:
        yield env, forks
    finally:
        forks.close()


@pytest.mark.no_pypy   # the commands are the same under PyPy; once is enough (and ptf/grpc are CPython's)
@pytest.mark.parametrize("document", SH_DOCUMENTS)
def test_every_sh_example_runs_as_printed(document, runner, tmp_path):
    """Each command of each ```sh block of the document exits 0, run in order from a fresh clone
    with `dataplane` and `python` as this package and interpreter; a server line runs until it
    serves (and, with `&`, to the end of its block). Left out or changed: NOT_RUN, OVERRIDES, NEEDS
    (skipped without the program), and the servers' port and /tmp files (``_localised``)."""
    env, forks = runner
    clone = _clone(tmp_path)
    _small_jobs(tmp_path)
    failures: list[str] = []
    skipped: list[tuple[int, str]] = []
    _run_blocks(ROOT / document, clone, env, tmp_path, forks, failures, skipped)
    assert not failures, "\n\n".join(failures)


def _run_blocks(doc: Path, clone: Path, env: dict, tmp_path: Path, forks: CommandForks, failures: list,
                skipped: list) -> None:
    """Run ``doc``'s sh blocks in order (see test_every_sh_example_runs_as_printed)."""
    name = doc.relative_to(ROOT)
    for line, commands in _sh_blocks(doc):
        if commands and commands[0].startswith(NOT_RUN_BLOCKS):
            skipped += [(line, c) for c in commands]
            continue
        port, servers = _free_port(), []
        try:
            for command in commands:
                if command.startswith(tuple(NOT_RUN)):
                    skipped.append((line, command))
                    continue
                command = OVERRIDES.get(command, (command, ""))[0]
                missing = [p for word, p in NEEDS.items() if word in command.split() and shutil.which(p) is None]
                if missing:
                    skipped.append((line, command))
                    continue
                command = _localised(command, tmp_path, port)
                if command.startswith("dataplane serve"):
                    proc, said = _start_server(command, clone, env)
                    if proc is None:
                        failures.append(f"{name} line {line}: {command}\n{said[-2000:]}")
                    elif command.endswith("&"):
                        servers.append(proc)
                    else:
                        _stop(proc)     # serves until stopped
                    continue
                words = shlex.split(command)
                if words[0] == "dataplane" and "--ranks" not in words and not SHELL & set(command):
                    done = forks.run(words[1:], clone)
                    code, out = done.returncode, done.stdout + done.stderr
                    if code is None:
                        out += "\n(killed after 120 s)"
                else:
                    code, out = _run(command, clone, env)
                if code != 0:
                    failures.append(f"{name} line {line}: {command}\nexit {code}\n{out[-3000:]}")
        finally:
            for proc in servers:
                _stop(proc)


def _all_commands() -> list[str]:
    return [c for doc in documents() for _, block in _sh_blocks(doc) for c in block]


def test_every_override_and_omission_still_names_a_command():
    """An entry left behind after a page changed would hide nothing: each must match a command of
    README or a page."""
    commands = _all_commands()
    assert [c for c in OVERRIDES if c not in commands] == []
    assert [p for p in NOT_RUN if not any(c.startswith(p) for c in commands)] == []


def test_most_commands_run():
    """NOT_RUN is for the few commands that cannot run here: a broad entry that swallowed real
    examples would show as many more left out (today 31 of 114: installs, the test and lint commands
    themselves, root, the tutorials' checkout; so under a third, and at least 80 run)."""
    commands = _all_commands()
    left_out = [c for doc in documents() for _, block in _sh_blocks(doc) for c in _left_out(block)]
    assert len(left_out) < len(commands) / 3, left_out
    assert len(commands) - len(left_out) >= 80
