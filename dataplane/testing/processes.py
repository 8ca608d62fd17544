"""Running ``dataplane`` as a separate process from a test: a free loopback port, the command
line, waiting until it listens, and stopping it as Ctrl-C would.

What a pytest test needs to put ``dataplane serve`` or ``dataplane run --serve`` in front of
a real client (p4runtime-shell, ptf, a controller script) and to leave nothing behind, and to
run a command on one and on several MPI ranks (``stdout_on_ranks``).
"""
from __future__ import annotations

import signal
import socket
import subprocess
import time
from pathlib import Path

from dataplane.resources import self_command


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def dataplane_command(*args: str) -> list[str]:
    """The argv that runs ``dataplane ARGS`` with this interpreter and the package this test
    imported (no PATH lookup; not a checkout in the working folder: ``resources.self_command``)."""
    return self_command(*args)


def stdout_on_ranks(*args: str, ranks: tuple[int, ...] = (1, 2), timeout: float = 300) -> list[str]:
    """What ``dataplane ARGS --ranks N`` prints for each N of ``ranks``, each run to success
    (an AssertionError with its stderr otherwise): the runs a test compares byte for byte.

    The runs go side by side: the one-rank run alone would leave a core idle."""
    procs = [subprocess.Popen(dataplane_command(*args, "--ranks", str(n)), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for n in ranks]
    try:
        outs = []
        for proc in procs:
            out, err = proc.communicate(timeout=timeout)
            assert proc.returncode == 0, err
            outs.append(out)
        return outs
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()


def wait_listening(proc: subprocess.Popen, port: int, log: Path, timeout: float = 30) -> None:
    """Return once something accepts on 127.0.0.1:``port``; raise with the log if ``proc`` exits
    or ``timeout`` seconds pass first."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"the process exited with {proc.returncode}:\n{log.read_text()}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise TimeoutError(f"nothing listened on port {port} in {timeout} s:\n{log.read_text()}")


def stop_process(proc: subprocess.Popen, timeout: float = 10) -> None:
    """SIGINT (the servers' clean stop), then kill if it has not ended within ``timeout`` s."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
