"""Locate the data that ships with the package (grammar, built-in programs, topologies), the
package itself for a child process (``self_command``), and its own source files among a
traceback's (``package_path``).

In a source checkout (or an editable install) they sit at the repository root;
in a wheel the build hook in setup.py copies them under ``dataplane/_data``.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Optional

_PACKAGE_DIR = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """Return the directory ``name`` (``grammar``, ``programs``, ``topologies`` or ``jobs``)."""
    installed = _PACKAGE_DIR / "_data" / name
    if installed.is_dir():
        return installed
    checkout = _PACKAGE_DIR.parent / name
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(f"dataplane data directory {name!r} not found (looked in {installed} and {checkout})")


def include_dir() -> Path:
    """Directory holding the bundled ``core.p4`` and ``v1model.p4``."""
    return _PACKAGE_DIR / "p4include"


def builtin_program(name: str) -> Path:
    """Path of a built-in program, by file name with or without ``.p4``."""
    return _builtin("programs", name, ".p4", "program")


def builtin_topology(name: str) -> Path:
    """Path of a built-in topology (``leaf-spine``, ``basic``, ``vxlan-dpu``), with or without ``.yaml``."""
    return _builtin("topologies", name, ".yaml", "topology")


def builtin_job(name: str) -> Path:
    """Path of a built-in training job (``jobs/``), with or without ``.yaml``."""
    return _builtin("jobs", name, ".yaml", "training job")


def _builtin(folder: str, name: str, suffix: str, what: str) -> Path:
    """``folder/name`` or ``folder/name+suffix`` among the bundled data; FileNotFoundError if neither."""
    where = data_dir(folder)
    for candidate in (where / name, where / f"{name}{suffix}"):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"no built-in {what} {name!r} in {where}")


def self_command(*args: str) -> list[str]:
    """The argv that runs ``dataplane ARGS`` in a new process with this interpreter and this very
    package. Python puts the working folder first on a child's path, so a ``dataplane/`` folder
    there (a checkout beside an installed copy) would otherwise stand in for it, with other code
    and other data paths; the folder holding this package goes before it instead."""
    root = str(_PACKAGE_DIR.parent)
    code = f"import sys; sys.path.insert(0, {root!r}); from dataplane.cli import run; run()"
    return [sys.executable, "-c", code, *args]


def available_cpus() -> int:
    """CPUs this process may run on (its affinity mask where the platform has one, else the machine's)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def package_path(filename: str) -> Optional[str]:
    """``dataplane/SUB/MODULE.py`` when ``filename`` (a traceback frame's) is a file of this very
    package, else None. Told by where the package is, never by a folder's name: a checkout is
    usually cloned into a folder called ``dataplane`` too, and its tests and tools (and a venv
    inside it) would otherwise pass for the package's own code."""
    if filename.startswith("<"):   # generated code's pseudo-files (<p4:...>, <string>)
        return None
    try:
        relative = Path(filename).resolve().relative_to(_PACKAGE_DIR)
    except ValueError:
        return None
    return "/".join(("dataplane", *relative.parts))
