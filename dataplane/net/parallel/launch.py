"""``--ranks N``: start this same command under ``mpiexec -n N`` and wait for it.

MPI comes from the system (Debian: ``apt-get install openmpi-bin``, which mpi4py's wheel loads
as is; MPICH works too, with mpi4py built from source), mpi4py from ``pip install
'dataplane[mpi]'``. ``DATAPLANE_MPIEXEC`` names another launcher.
Open MPI refuses to run as root and to start more ranks than cores unless told; the variables
that tell it are set for the child (MPICH ignores them).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

from dataplane.net.parallel.runtime import ParallelError
from dataplane.net.parallel.session import mpi_world_size
from dataplane.resources import self_command

# Yielding while waiting in a collective lets a rank that shares its core (more ranks than
# cores, or a busy machine) get on with its window instead of being starved by a spinning peer.
_OPENMPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                "OMPI_MCA_rmaps_base_oversubscribe": "1", "OMPI_MCA_mpi_yield_when_idle": "1"}


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


def relaunch(ranks: int, argv: list[str] | None = None) -> int | None:
    """Under one process and asked for ``ranks`` > 1: run ``dataplane ARGV`` (this package,
    ``resources.self_command``) on ``ranks`` MPI ranks and return its exit status. None when there is nothing to launch (one
    rank asked, or already under mpiexec with the right size)."""
    size = mpi_world_size()
    if size > 1:
        if ranks not in (1, size):
            raise ParallelError(f"--ranks {ranks} but mpiexec started {size} ranks")
        return None
    if ranks <= 1:
        return None
    exe = mpiexec_path()
    if exe is None:
        raise ParallelError("--ranks needs MPI's mpiexec (Debian: apt-get install openmpi-bin) "
                            "and mpi4py (pip install 'dataplane[mpi]')")
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        raise ParallelError("--ranks needs mpi4py: pip install 'dataplane[mpi]'") from None
    args = sys.argv[1:] if argv is None else argv
    env = {**_OPENMPI_ENV, **os.environ}
    return subprocess.call([exe, "-n", str(ranks), *self_command(*args)], env=env)
