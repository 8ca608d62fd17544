"""Compiled generated code kept between runs: ``compile(text, filename, "exec")`` from disk when
this interpreter compiled the same text under the same name before.

Compiling the per-packet pipeline's generated module was half of building a small program's
switch (22 ms of the built-in router's 37 on every ``run-packet``). Entries are ``marshal`` ed
code objects, one file each in the compile cache's folder (``lang.compile_cache.cache_dir``,
under ``code/``), keyed by a hash of the interpreter's version, the file name and the text;
written beside their name and renamed into place; a hit marks its entry used, and a store
that finds more than ``KEEP`` removes the least recently used. CPython only (marshal's code format is
one interpreter version's), off with ``DATAPLANE_CACHE=off``; a folder that cannot be written
or an entry that does not load is a miss, and so is an entry or folder another user owns or
may write (``cache_files``).
"""
from __future__ import annotations

import hashlib
import marshal
import os
import sys
from types import CodeType

_ON = sys.implementation.name == "cpython"
_MIN_TEXT = 4096     # below this, compiling costs less than finding the file
KEEP = 512


def compiled(text: str, filename: str) -> CodeType:
    """``compile(text, filename, "exec")``, through the cache (see the module's docstring)."""
    from dataplane.cache_files import private_folder, read_trusted
    from dataplane.lang.compile_cache import cache_dir, enabled

    if not _ON or len(text) < _MIN_TEXT or not enabled():
        return compile(text, filename, "exec")
    key = hashlib.sha256(f"{sys.version}\0{filename}\0".encode() + text.encode("utf-8", "surrogatepass")).hexdigest()
    folder = cache_dir() / "code"
    path = folder / f"{key}.marshal"
    raw = read_trusted(path)
    try:
        code = marshal.loads(raw) if raw is not None else None
        if isinstance(code, CodeType):
            os.utime(path)      # recently used: the last to go when the folder is pruned
            return code
    except (OSError, EOFError, ValueError, TypeError):
        pass
    code = compile(text, filename, "exec")
    if not private_folder(folder):
        return code
    try:
        import tempfile  # only on a miss

        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
        with os.fdopen(fd, "wb") as f:
            marshal.dump(code, f)
        os.replace(tmp, path)
        _prune(folder)
    except OSError:
        pass
    return code


def _prune(folder) -> None:
    """Remove the least recently used entries past ``KEEP`` (another process may be removing them too)."""
    found = []
    for e in os.scandir(folder):
        if e.name.endswith(".marshal"):
            try:
                found.append((e.stat().st_mtime_ns, e.path))
            except OSError:
                pass
    found.sort()
    for _, path in found[:max(0, len(found) - KEEP)]:
        try:
            os.unlink(path)
        except OSError:
            pass
