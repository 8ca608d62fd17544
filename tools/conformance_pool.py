"""The worker pool of tools/conformance.py: one job at a time per process, and a worker that
takes too long (a hang, a runaway compile) or dies (a crash in C) is replaced, its job counted
as a timeout or a crash rather than stopping the run."""
from __future__ import annotations

import collections
import multiprocessing as mp
import os
import sys
import time
from typing import Callable


def _worker(conn, work) -> None:
    sys.setrecursionlimit(10_000)
    while True:
        job = conn.recv()
        if job is None:
            return
        conn.send(work(job))


class Pool:
    """N worker processes fed one job at a time (``work(job)`` returns its result dict); a worker
    past the time limit is killed and replaced."""

    def __init__(self, jobs: int, timeout: float, work: Callable[[tuple], dict]):
        self.timeout, self.work = timeout, work
        self.ctx = mp.get_context("fork" if hasattr(os, "fork") else "spawn")
        self.slots = [self._start() for _ in range(jobs)]

    def _start(self):
        parent, child = self.ctx.Pipe()
        proc = self.ctx.Process(target=_worker, args=(child, self.work), daemon=True)
        proc.start()
        return [proc, parent, None, 0.0]   # process, pipe, job, started

    def run(self, jobs: list, progress) -> list[dict]:
        pending = collections.deque(jobs)
        results = []
        while pending or any(s[2] is not None for s in self.slots):
            for i, slot in enumerate(self.slots):
                proc, conn, job, started = slot
                if job is None and pending:
                    job = pending.popleft()
                    conn.send(job)
                    slot[2], slot[3] = job, time.monotonic()
                    continue
                if job is None:
                    continue
                if conn.poll(0.01):
                    try:
                        results.append(conn.recv())
                    except EOFError:   # the worker died (a crash in C, an abort)
                        results.append({"suite": job[0], "path": job[1], "status": "fail",
                                        "category": "crash", "message": f"worker exit code {proc.exitcode}"})
                        self.slots[i] = self._start()
                        progress(results[-1])
                        continue
                    slot[2] = None
                    progress(results[-1])
                elif not proc.is_alive() or time.monotonic() - started > self.timeout:
                    proc.kill()
                    proc.join()
                    cat = "timeout" if proc.exitcode in (-9, None) else "crash"
                    results.append({"suite": job[0], "path": job[1], "status": "fail", "category": cat,
                                    "message": f"no result after {self.timeout:.0f} s" if cat == "timeout"
                                    else f"worker exit code {proc.exitcode}"})
                    self.slots[i] = self._start()
                    progress(results[-1])
        for proc, conn, _, _ in self.slots:
            conn.send(None)
            proc.join(timeout=1)
        return results
