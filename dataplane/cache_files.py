"""Where dataplane keeps its caches, and the checks that make a cached file safe to load.

The caches (``lang.compile_cache``'s pickled programs, ``engine.code_cache``'s and ``records``'
marshalled code) hold objects that run when they are loaded: whoever can write one can run code
as the user who loads it. So the folder is made private (0700) when dataplane creates it, and a
file is loaded only when it and every folder from the cache root down to it belong to this user
and no one else may write them; anything else is not loaded, with one warning on stderr saying
why, and nothing is written into a folder that cannot be trusted (a file that cannot be, in a
folder that can, is replaced by the recompiled entry, private and this user's). A cache that
cannot be trusted costs a recompile, nothing more.

Where: ``$DATAPLANE_CACHE_DIR``, else ``$XDG_CACHE_HOME/dataplane``, else ``~/.cache/dataplane``.
Only the standard library, and nothing of dataplane: ``records`` imports this at start-up.
"""
from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

__all__ = ["cache_root", "private_folder", "read_trusted"]

_warned: set[str] = set()      # one warning per path and process


def cache_root() -> Path:
    """The folder every cache lives under (see the module's docstring)."""
    explicit = os.environ.get("DATAPLANE_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "dataplane"


def _why_not(st: os.stat_result, what: str) -> str | None:
    """Why a file or folder with status ``st`` must not be trusted, or None."""
    me = os.geteuid() if hasattr(os, "geteuid") else st.st_uid
    if st.st_uid != me:
        return f"{what} belongs to user {st.st_uid}, not to this user ({me})"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"{what} may be written by {'its group' if st.st_mode & stat.S_IWGRP else 'other users'}"
    return None


def _warn(path: Path | str, why: str) -> None:
    key = str(path)
    if key not in _warned:
        _warned.add(key)
        sys.stderr.write(f"warning: cache: {key}: {why}; it is not used (remove it, or chmod go-w it)\n")


def _folders_trusted(folder: Path, root: Path) -> bool:
    """``folder`` and each folder above it up to ``root`` are this user's and writable by no one else."""
    try:
        rel = folder.relative_to(root)
    except ValueError:
        rel = None
    chain = [root, *(root.joinpath(*rel.parts[:i + 1]) for i in range(len(rel.parts)))] if rel is not None else [folder]
    for f in chain:
        try:
            st = os.stat(f)
        except OSError:
            return False
        why = _why_not(st, "the folder")
        if why is not None:
            _warn(f, why)
            return False
    return True


def private_folder(folder: Path, root: Path | None = None) -> bool:
    """Make ``folder`` and any missing folder above it with mode 0700; True when it can be
    trusted (``_folders_trusted`` from ``root``, the cache root by default), False when it
    cannot or cannot be made (then nothing is written there)."""
    root = cache_root() if root is None else root
    missing = []
    f = folder
    while not f.exists() and f != f.parent:
        missing.append(f)
        f = f.parent
    try:
        for f in reversed(missing):
            try:
                os.mkdir(f, 0o700)
            except FileExistsError:       # another process made it first: checked below like any other
                pass
    except OSError:
        return False
    return _folders_trusted(folder, root)


def read_trusted(path: Path, root: Path | None = None) -> bytes | None:
    """The bytes of the cached file ``path``, or None when it is missing, unreadable, a
    symbolic link, or not to be trusted (it or a folder above it up to ``root``: see the module's
    docstring; a warning says which). The file is checked as opened, so it cannot be swapped
    between the check and the read."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        why = _why_not(st, "the file") if stat.S_ISREG(st.st_mode) else "not a regular file"
        if why is not None:
            _warn(path, why)
            return None
        if not _folders_trusted(Path(path).parent, cache_root() if root is None else root):
            return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read()
    except OSError:
        return None
    finally:
        os.close(fd)
