"""``--ranks N``: start this same command under ``mpiexec -n N``, wait for it, and never leave it behind.

MPI comes from the system (Debian: ``apt-get install openmpi-bin``, which mpi4py's wheel loads
as is; MPICH works too, with mpi4py built from source), mpi4py from ``pip install
'dataplane[mpi]'``. ``DATAPLANE_MPIEXEC`` names another launcher.
Open MPI refuses to run as root and to start more ranks than cores unless told; the variables
that tell it are set for the child (MPICH ignores them). More ranks than CPUs is refused here
first (``check_ranks``) unless the user asks for it (``--oversubscribe``): on a 2-core machine
``--ranks 1000`` would start a thousand busy processes.

``mpiexec`` and its ranks end when the ``dataplane`` that started them ends, however it ends:

* SIGINT, SIGTERM or SIGHUP to the parent is forwarded to ``mpiexec`` (Open MPI's answers any of
  them by sending SIGTERM to every rank, then SIGKILL, and exiting); if it has not ended
  ``GRACE`` seconds later, or a second signal comes, it is killed. ``mpiexec`` runs in its own
  session, so a terminal's Ctrl-C reaches the parent alone and is forwarded once.
* SIGKILL of the parent cannot be caught: ``mpiexec`` is started with the parent-death signal
  (Linux ``PR_SET_PDEATHSIG``, set between fork and exec) of SIGTERM, so the kernel sends it
  SIGTERM when the parent dies, and it ends its ranks as above.
* Open MPI puts every rank in a process group of its own, so signalling a group never reaches
  them all; and a SIGKILLed ``mpiexec`` leaves its ranks running. So each rank the parent
  launched (``LAUNCHER_VAR`` in its environment) sets the same parent-death signal on itself
  (``die_with_parent``) and ends when its ``mpiexec`` does.

A pipe the ranks watch was the other way: ``mpiexec`` closes the descriptors it does not
know before it starts the ranks, so the pipe would have to be a named one found by a path in
the environment, and each rank would need a thread to watch it. The parent-death signal is one
system call in each process and needs neither.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from typing import Callable, Mapping

from dataplane.net.parallel.runtime import ParallelError
from dataplane.net.parallel.session import mpi_world_size
from dataplane.resources import available_cpus, self_command

# Yielding while waiting in a collective lets a rank that shares its core (more ranks than
# cores, or a busy machine) get on with its window instead of being starved by a spinning peer.
_OPENMPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                "OMPI_MCA_rmaps_base_oversubscribe": "1", "OMPI_MCA_mpi_yield_when_idle": "1"}
# Set in mpiexec's environment (the parent's pid): a rank that finds it ends with its parent.
LAUNCHER_VAR = "DATAPLANE_LAUNCHER_PID"
GRACE = 10.0             # seconds mpiexec has to end its ranks after a forwarded signal
_FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_PR_SET_PDEATHSIG = 1    # linux/prctl.h
# The variables an Open MPI singleton (MPI_Init without mpiexec) sets in its own environment.
_SINGLETON_VARS = ("OMPI_MCA_ess", "OMPI_MCA_orte_", "OMPI_MCA_pmix", "OMPI_APP_CTX_", "ORTE_", "PMIX_",
                   "HFI_NO_BACKTRACE", "IPATH_NO_BACKTRACE")


def mpiexec_path() -> str | None:
    """The MPI launcher to use, or None if there is none."""
    return os.environ.get("DATAPLANE_MPIEXEC") or shutil.which("mpiexec")


def mpi_available() -> bool:
    """True when both an MPI launcher and mpi4py can be had."""
    if mpiexec_path() is None:
        return False
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return True


def check_ranks(ranks: int, oversubscribe: bool = False) -> None:
    """Refuse ``ranks`` above the CPUs this process may run on unless ``oversubscribe``."""
    cpus = available_cpus()
    if ranks > cpus and not oversubscribe:
        raise ParallelError(f"--ranks {ranks} is more than the {cpus} CPU{'s' if cpus != 1 else ''} this process "
                            "may run on: the ranks would only take turns on them; add --oversubscribe to run "
                            "them anyway")


def relaunch(ranks: int, argv: list[str] | None = None, *, oversubscribe: bool = False) -> int | None:
    """Under one process and asked for ``ranks`` > 1: run ``dataplane ARGV`` (this package,
    ``resources.self_command``) on ``ranks`` MPI ranks and return its exit status (128 + the
    signal's number when a signal ended the run). None when there is nothing to launch (one
    rank asked, or already under mpiexec with the right size; a rank this module launched then
    sets itself to end with its ``mpiexec``)."""
    size = mpi_world_size()
    if size > 1:
        if ranks not in (1, size):
            raise ParallelError(f"--ranks {ranks} but mpiexec started {size} ranks")
        if os.environ.get(LAUNCHER_VAR):
            die_with_parent()
        return None
    if ranks <= 1:
        return None
    check_ranks(ranks, oversubscribe)
    exe = mpiexec_path()
    if exe is None:
        raise ParallelError("--ranks needs MPI's mpiexec (Debian: apt-get install openmpi-bin) "
                            "and mpi4py (pip install 'dataplane[mpi]')")
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        raise ParallelError("--ranks needs mpi4py: pip install 'dataplane[mpi]'") from None
    args = sys.argv[1:] if argv is None else argv
    env = {**_OPENMPI_ENV, **launcher_environ(os.environ), LAUNCHER_VAR: str(os.getpid())}
    return run_launcher([exe, "-n", str(ranks), *self_command(*args)], env)


def launcher_environ(environ: Mapping[str, str]) -> dict[str, str]:
    """``environ`` without what Open MPI's singleton start put there: ``from mpi4py import MPI``
    in a process mpiexec did not start (a test, a notebook, a program using the API) makes it an
    MPI job of one and adds ``OMPI_MCA_ess=singleton``, its PMIx server's address and kin.
    Inherited, they make a new mpiexec take itself for part of that job, and Open MPI 4's then
    exits with status 1 without a word, its ranks never started."""
    if environ.get("OMPI_MCA_ess") != "singleton":
        return dict(environ)
    return {k: v for k, v in environ.items() if not k.startswith(_SINGLETON_VARS)}


def run_launcher(cmd: list[str], env: dict[str, str], grace: float = GRACE) -> int:
    """Run ``cmd`` (mpiexec and its arguments) to its end as the module docstring says: in a
    session of its own, with the parent-death signal set, signals forwarded."""
    try:
        proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, start_new_session=True,
                                preexec_fn=_pdeathsig_setter(signal.SIGTERM))
    except OSError as err:
        raise ParallelError(f"cannot start {cmd[0]}: {err.strerror or err}") from None
    received: list[int] = []

    def forward(signum: int, _frame: object) -> None:
        received.append(signum)
        try:
            os.kill(proc.pid, signum if len(received) == 1 else signal.SIGKILL)
        except ProcessLookupError:
            pass

    previous = {sig: signal.signal(sig, forward) for sig in _FORWARDED}
    try:
        deadline = None
        while True:
            try:
                status = proc.wait(timeout=0.2)
                break
            except subprocess.TimeoutExpired:
                if received and deadline is None:
                    deadline = time.monotonic() + grace
                if deadline is not None and time.monotonic() > deadline:
                    proc.kill()       # its ranks end with it (each has the parent-death signal)
    finally:
        if proc.poll() is None:       # an exception here (none expected): still leave nothing behind
            proc.kill()
            proc.wait()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if received:
        return 128 + received[0]
    return 128 - status if status < 0 else status      # a signal ended mpiexec: the shell's 128 + N


def die_with_parent(sig: int = signal.SIGTERM) -> None:
    """Have the kernel send ``sig`` to this process when its parent ends (Linux; elsewhere a
    no-op); if the parent has already gone (this process was re-parented), exit now."""
    setter = _pdeathsig_setter(sig)
    if setter is None:
        return
    parent = os.getppid()
    setter()
    if os.getppid() != parent or parent == 1:
        raise SystemExit(1)


def _pdeathsig_setter(sig: int) -> Callable[[], None] | None:
    """A function that sets this process's parent-death signal to ``sig``, bound before any
    fork (it runs between fork and exec, where loading a library is not safe); None off Linux."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None

    def setter() -> None:
        prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
    return setter
