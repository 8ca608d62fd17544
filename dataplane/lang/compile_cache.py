"""An on-disk cache of compiled programs, so a command that runs a program it ran before skips
parsing and checking (most of a small program's start-up).

An entry is keyed by the preprocessed text (so every included file and ``-D`` define
counts), the names of the source and of the files it includes (they are in every span), the
warning policy, the Python version and a hash of the compiler itself (``compiler_hash``: its
modules and grammar): a changed program or a changed front end never meets an old entry.
Entries are pickles of ``(program, warnings)``; one is written to a temporary file beside its
final name and renamed into place, so concurrent writers and readers never see half an
entry, and an entry that does not load (truncated, from another version) counts as a miss
and is replaced.

Where: ``$DATAPLANE_CACHE_DIR``, else ``$XDG_CACHE_HOME/dataplane``, else
``~/.cache/dataplane`` (``cache_files``, which makes it private and loads only files this user
owns and no one else may write). ``DATAPLANE_CACHE=off`` (or ``0``/``no``) turns it off; a cache
directory that cannot be written is skipped silently (the program compiles as before).
Only programs that compile without errors are stored, and at most ``KEEP`` of them: a hit
marks its entry used (its modification time), and a store that finds more removes the least
recently used.
"""
from __future__ import annotations

import hashlib
import os
import pickle
import sys
import time
from functools import lru_cache
from pathlib import Path
from typing import Mapping, Sequence

from dataplane.diagnostics import WarningPolicy
from dataplane.lang.compile_result import CompileResult

FORMAT = b"dataplane-compile-cache 1"
KEEP = 512          # entries kept; a store past it removes the least recently used
_PACKAGE = Path(__file__).resolve().parent.parent


def enabled() -> bool:
    """Whether the cache is on (``DATAPLANE_CACHE`` is not ``off``, ``0``, ``no`` or ``false``)."""
    return os.environ.get("DATAPLANE_CACHE", "").strip().lower() not in ("off", "0", "no", "false")


def cache_dir() -> Path:
    """The folder entries live in (see the module's docstring)."""
    from dataplane.cache_files import cache_root

    return cache_root()


@lru_cache(maxsize=1)
def compiler_hash() -> str:
    """A hash of the compiler as installed: the path, size and modification time of every module
    the front end is made of (the package's top-level modules, ``lang/`` with its folders and ``ir/``) and of
    the grammar, the Python version and lark's installed ``__init__.py`` (which holds its
    version). Stat, not contents: a fraction of a millisecond where reading them took a good
    part of what the cache saves; any edit or reinstall changes a file's size or time."""
    import importlib.util

    from dataplane.resources import data_dir

    # lark too: an upgrade of the parser alone may change the trees the front end sees. Found,
    # not imported (a hit never needs lark), and not through importlib.metadata (0.03-0.06 s
    # of imports on every command).
    spec = importlib.util.find_spec("lark")
    lark_id = "?"
    if spec is not None and spec.origin and os.path.isfile(spec.origin):
        st = os.stat(spec.origin)
        lark_id = f"{spec.origin}\0{st.st_size}\0{st.st_mtime_ns}"
    h = hashlib.sha256(FORMAT + sys.version.encode() + lark_id.encode("utf-8", "surrogateescape"))
    lang = _PACKAGE / "lang"
    dirs = [(_PACKAGE, ".py"), (lang, ".py"), (_PACKAGE / "ir", ".py")]
    with os.scandir(lang) as it:   # lang's folders by job: preprocess/, build/, check/, inline/
        # every folder of modules, whether or not it has an __init__.py
        dirs += [(Path(e.path), ".py") for e in sorted(it, key=lambda e: e.name)
                 if e.is_dir() and not e.name.startswith((".", "__"))]
    try:
        dirs.append((data_dir("grammar"), ".lark"))
    except FileNotFoundError:
        pass
    for folder, suffix in dirs:
        with os.scandir(folder) as it:
            entries = sorted((e for e in it if e.name.endswith(suffix) and e.is_file()), key=lambda e: e.name)
        for e in entries:
            st = e.stat()
            h.update(f"{e.path}\0{st.st_size}\0{st.st_mtime_ns}\0".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def compile_file_cached(path: str | Path, *, include_dirs: Sequence[Path] = (),
                        defines: Mapping[str, str] | None = None,
                        warnings: WarningPolicy | None = None) -> CompileResult:
    """``frontend.compile_file``, through the cache when it is on. The result's ``timings``
    say ``cache: hit`` or ``miss`` (as 1.0 or 0.0) besides the passes that ran."""
    if not enabled():
        from dataplane.lang.frontend import compile_file

        return compile_file(path, include_dirs=include_dirs, defines=defines, warnings=warnings)
    from dataplane.lang.preprocess.directives import preprocess

    start = time.perf_counter()
    policy = warnings or WarningPolicy()
    pre = preprocess(path, include_dirs=include_dirs, defines=defines)
    key = _key(pre.text, str(path), list(pre.files), policy)
    entry = cache_dir() / key[:2] / f"{key}.pickle"
    hit = _load(entry)
    if hit is not None:
        try:
            os.utime(entry)      # recently used: the last to go when the cache is pruned
        except OSError:
            pass
        program, kept = hit
        total = time.perf_counter() - start
        return CompileResult(program, kept, {"cache": 1.0, "total": total})
    from dataplane.lang.frontend import compile_preprocessed

    result = compile_preprocessed(pre, str(path), warnings=policy, start=start)
    _store(entry, (result.program, result.warnings))
    result.timings["cache"] = 0.0
    return result


def _key(text: str, source: str, files: list[str], policy: WarningPolicy) -> str:
    # ``files``: the names of the files read, which the program's spans carry (the same text
    # may come from another include directory).
    h = hashlib.sha256(compiler_hash().encode())
    for part in (source, repr(files), repr(sorted(policy.disabled)), repr(policy.as_errors), text):
        h.update(part.encode("utf-8", "surrogatepass") + b"\0")
    return h.hexdigest()


def _load(entry: Path):
    from dataplane.cache_files import read_trusted

    raw = read_trusted(entry)
    if raw is None or not raw.startswith(FORMAT + b"\n"):
        return None
    try:
        return pickle.loads(raw[len(FORMAT) + 1:])
    except Exception:     # a damaged or foreign entry is a miss; the compile that follows replaces it
        return None


def _store(entry: Path, value) -> None:
    try:
        data = FORMAT + b"\n" + pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:     # something in this program's IR does not pickle: it is simply not cached
        return
    from dataplane.cache_files import private_folder

    if not private_folder(entry.parent):
        return
    try:
        import tempfile  # only on a miss: a hit does not pay for its imports

        fd, tmp = tempfile.mkstemp(dir=entry.parent, prefix=".tmp-", suffix=".pickle")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, entry)       # atomic: readers see the old entry or the whole new one
        except BaseException:
            os.unlink(tmp)
            raise
        _prune(entry.parent.parent)
    except OSError:       # a read-only or full cache directory: run without the cache
        return


def _prune(root: Path) -> None:
    """Remove the least recently used entries past ``KEEP`` (another process may be removing
    the same ones: a file already gone is fine)."""
    found = []
    for sub in root.iterdir():
        if sub.is_dir():
            for e in os.scandir(sub):
                if e.name.endswith(".pickle") and not e.name.startswith("."):
                    try:
                        found.append((e.stat().st_mtime_ns, e.path))
                    except OSError:
                        pass
    if len(found) <= KEEP:
        return
    found.sort()
    for _, path in found[:len(found) - KEEP]:
        try:
            os.unlink(path)
        except OSError:
            pass
