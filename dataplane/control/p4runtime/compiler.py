"""Compiling what a client pushed, bounded: in a child process, with limits on size, time and memory.

A device config is P4 source from whoever reached the server; its compile may be made to run
for ever (a macro that doubles forty times) or to fill the memory (a register of 2^31 cells).
So ``BoundedCompiler.compile`` never compiles in the server's process: it starts
``compile_child`` (``python -m``, a fresh interpreter that imports neither grpc nor the server),
which compiles the text sandboxed (no file but the bundled architecture includes), loads it as
a switch under an address-space limit, and hands the program back pickled (the IR pickles:
the compile cache stores it the same way; measured on rt.p4, 26 kB and 2 ms each way, against
about 0.5 s to start the child). The parent waits at most ``timeout`` seconds of wall clock
and kills the child then, or as soon as ``abandon()`` says the client went away or the server is
stopping (it asks every 0.1 s). A config larger than ``max_bytes`` is refused unread.

The last few answers are kept by a hash of the text: programs that compiled (``remember``), so
a controller that pushes the same config again (p4runtime-shell on every connect,
VERIFY_AND_SAVE then COMMIT, a server started with the program) does not pay for a child
again, and compile errors, so a client that pushes the same bad config again does not either
(the compiler's messages depend on the text alone; a limit reached is not kept, as it depends
on the limits and the machine's load).
"""
from __future__ import annotations

import hashlib
import os
import pickle
import subprocess
import sys
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable

import grpc

from dataplane.control.p4runtime.status import P4RuntimeError, invalid

DEFAULT_TIMEOUT = 30.0          # seconds of wall clock for one compile (--compile-timeout)
DEFAULT_MAX_BYTES = 8 << 20     # a device config's size; a large real program is well under 1 MiB
DEFAULT_MEMORY = 2 << 30        # the child's address space
_KEEP = 16                      # answers remembered (a compile error's message is a few kB at most)
_POLL = 0.1                     # how often a waiting compile asks whether to give up


def exhausted(message: str) -> P4RuntimeError:
    return P4RuntimeError(grpc.StatusCode.RESOURCE_EXHAUSTED, message)


class BoundedCompiler:
    """Compiles device configs in child processes, at most ``jobs`` at a time; ``close()`` kills
    the running ones and refuses new ones. Thread-safe; one may serve several servers."""

    def __init__(self, *, timeout: float = DEFAULT_TIMEOUT, max_bytes: int = DEFAULT_MAX_BYTES,
                 memory: int = DEFAULT_MEMORY, jobs: int = 2):
        if timeout <= 0:
            raise ValueError(f"the compile timeout must be positive, not {timeout}")
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.memory = memory
        self._slots = threading.BoundedSemaphore(jobs)
        self._lock = threading.Lock()
        self._running: set[subprocess.Popen] = set()
        self._closed = False
        self._known: OrderedDict[str, tuple[str, bytes | str]] = OrderedDict()   # key -> ("ok", pickle) or ("error", message)

    def compile(self, text: str, source: str, *, abandon: Callable[[], bool] = lambda: False) -> Any:
        """The program of ``text`` (named ``source`` in messages). P4RuntimeError:
        INVALID_ARGUMENT for a program that does not compile (with the compiler's messages),
        RESOURCE_EXHAUSTED past a limit, CANCELLED when ``abandon()`` turned true."""
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > self.max_bytes:
            raise exhausted(f"the device config is {size} bytes, more than this server compiles "
                            f"({self.max_bytes} bytes)")
        key = _key(text, source)
        with self._lock:
            known = self._known.get(key)
            if known is not None:
                self._known.move_to_end(key)
        if known is not None:
            kind, value = known
            if kind == "ok":
                return pickle.loads(value)
            raise invalid(str(value))
        deadline = time.monotonic() + self.timeout
        while not self._slots.acquire(timeout=_POLL):
            self._check(abandon)
            if time.monotonic() >= deadline:
                raise exhausted(f"the server is busy compiling other device configs; none finished "
                                f"within {self.timeout:g} s (--compile-timeout)")
        try:
            answer = self._run(text, source, deadline, abandon)
        finally:
            self._slots.release()
        kind, value = answer
        if kind == "ok":
            self.remember(text, source, value)
            return value
        if kind == "error":
            self._keep(key, ("error", value))
        if kind == "limit":
            raise exhausted(value)
        if kind == "internal":
            raise P4RuntimeError(grpc.StatusCode.INTERNAL, value)
        raise invalid(value)

    def remember(self, text: str, source: str, program: Any) -> None:
        """Keep ``program`` as what ``text`` compiles to (a config known to compile)."""
        try:
            data = pickle.dumps(program, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:      # not picklable: it is compiled again when pushed
            return
        self._keep(_key(text, source), ("ok", data))

    def _keep(self, key: str, answer: tuple[str, bytes | str]) -> None:
        with self._lock:
            self._known[key] = answer
            self._known.move_to_end(key)
            while len(self._known) > _KEEP:
                self._known.popitem(last=False)

    def _check(self, abandon: Callable[[], bool]) -> None:
        if self._closed:
            raise P4RuntimeError(grpc.StatusCode.UNAVAILABLE, "the server is stopping")
        if abandon():
            raise P4RuntimeError(grpc.StatusCode.CANCELLED, "the call was cancelled")

    def _run(self, text: str, source: str, deadline: float, abandon: Callable[[], bool]) -> tuple[str, Any]:
        with self._lock:
            self._check(lambda: False)
            child = subprocess.Popen(_child_command(self.memory, self.timeout), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=_child_env())
            self._running.add(child)
        job = pickle.dumps({"text": text, "source": source}, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            out = None
            first = True
            while out is None:
                try:
                    out, _ = child.communicate(job if first else None,
                                               timeout=max(0.0, min(_POLL, deadline - time.monotonic())))
                except subprocess.TimeoutExpired:
                    first = False
                    self._check(abandon)
                    if time.monotonic() >= deadline:
                        raise exhausted(f"the device config did not compile within {self.timeout:g} s "
                                        f"(this server's --compile-timeout); the compile was stopped") from None
            self._check(lambda: False)       # killed by close(): say so rather than "crashed"
            if child.returncode != 0 or not out:
                raise P4RuntimeError(grpc.StatusCode.INTERNAL, f"the compile ended without an answer "
                                     f"(exit status {child.returncode})")
            return pickle.loads(out)
        finally:
            if child.poll() is None:
                child.kill()
            child.wait()
            with self._lock:
                self._running.discard(child)

    def close(self) -> None:
        """Kill every running compile; compiles asked for from now on are refused (UNAVAILABLE)."""
        with self._lock:
            self._closed = True
            running = list(self._running)
        for child in running:
            if child.poll() is None:
                child.kill()


def _key(text: str, source: str) -> str:
    return hashlib.sha256(source.encode("utf-8", "surrogatepass") + b"\0" +
                          text.encode("utf-8", "surrogatepass")).hexdigest()


def _child_command(memory: int, timeout: float) -> list[str]:
    # CPU time a little past the wall-clock limit: if the server dies without killing the
    # child, the kernel ends it anyway.
    return [sys.executable, "-m", "dataplane.control.p4runtime.compile_child", str(memory), str(int(timeout) + 5)]


def _child_env() -> dict[str, str]:
    """The server's environment with this package first on the path (the server may run from a
    checkout that is not installed)."""
    root = str(Path(__file__).resolve().parents[3])
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": root + (os.pathsep + path if path else "")}
