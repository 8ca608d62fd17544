"""``dataplane`` commands for a test suite, each in a fork of one process that has imported the
package already: a hundred commands then pay one start of Python, numpy and the CLI instead of a
hundred (about 0.6 s each on CPython).

What a test gets is what a process of its own would give it: the exit status (None when the
command outlived its timeout and was killed with its process group), its stdout and stderr, in
the working folder and environment it was given, stdin at /dev/null. Linux and macOS only
(``os.fork``).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

#: The process forked for each command. One JSON job a line in ({argv, cwd, out, err, timeout,
#: env}); the exit status a line out (null: killed at the timeout).
DRIVER = r"""
import io, json, os, signal, sys, time
import numpy, dataplane.cli, dataplane.cli.compile, dataplane.cli.packet, dataplane.cli.network, dataplane.cli.scenario, dataplane.control.switch
jobs, answers = sys.stdin, sys.stdout
for line in jobs:
    job = json.loads(line)
    pid = os.fork()
    if pid == 0:
        os.setsid()
        os.chdir(job["cwd"])
        if job["env"] is not None:
            os.environ.clear()
            os.environ.update(job["env"])
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        for fd, path in ((1, job["out"]), (2, job["err"])):
            os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
        sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False))
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), line_buffering=True)
        sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), line_buffering=True)
        sys.argv = ["dataplane", *job["argv"]]
        code = 0
        try:
            dataplane.cli.run()
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 0 if e.code is None else (print(e.code, file=sys.stderr) or 1)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    deadline = time.monotonic() + job["timeout"]
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            code = os.waitstatus_to_exitcode(status)
            break
        if time.monotonic() > deadline:
            os.killpg(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            code = None
            break
        time.sleep(0.005)
    print(json.dumps(code), file=answers, flush=True)
"""


@dataclass
class Finished:
    """A command's exit status (None: killed at its timeout), stdout and stderr."""
    returncode: int | None
    stdout: str
    stderr: str


class CommandForks:
    """``run(argv, cwd)`` runs ``dataplane ARGV`` in a fork of one driver process, started with
    ``env`` (this process's environment by default) by this interpreter on this very package."""

    def __init__(self, env: dict[str, str] | None = None):
        root = str(Path(__file__).resolve().parents[2])    # this package, not a checkout in the cwd
        code = f"import sys; sys.path.insert(0, {root!r})\n{DRIVER}"
        self.proc = subprocess.Popen([sys.executable, "-c", code], env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        self.logs = Path(tempfile.mkdtemp(prefix="dataplane-forks-"))
        self.count = 0

    def run(self, argv: list[str], cwd: Path | str, timeout: float = 120,
            env: dict[str, str] | None = None) -> Finished:
        """``dataplane ARGV`` in ``cwd``, with ``env`` in place of the driver's environment if given."""
        self.count += 1
        out, err = self.logs / f"{self.count}.out", self.logs / f"{self.count}.err"
        job = {"argv": list(argv), "cwd": str(cwd), "out": str(out), "err": str(err), "timeout": timeout, "env": env}
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline()
        if not answer:
            raise RuntimeError(f"the fork driver ended (status {self.proc.wait()})")
        said = [p.read_text(errors="replace") if p.exists() else "" for p in (out, err)]
        for p in (out, err):
            p.unlink(missing_ok=True)
        return Finished(json.loads(answer), *said)

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for p in self.logs.iterdir():
            p.unlink()
        os.rmdir(self.logs)
