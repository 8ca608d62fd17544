"""The caches load only what this user alone may have written: the cache folder is made 0700,
and a cached file (or a folder above it) that another user owns or that its group or others
may write is not loaded, with a warning; for each of the three caches (compiled programs,
generated code, dataclass methods). Their entries run code when loaded: a planted entry is
code run as whoever loads it.

Owners are tested with ``os.chown`` to uid 12345, which needs root (CI runs as root)."""
from __future__ import annotations

import marshal
import os
import stat
import sys

import pytest

from dataplane import cache_files, records
from dataplane.engine import code_cache
from dataplane.lang.compile_cache import compile_file_cached

PROGRAM = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> f; }
struct hs { h_t h; }
struct m_t {}
parser P(packet_in p, out hs h, inout m_t m, inout standard_metadata_t s) { state start { p.extract(h.h); transition accept; } }
control V(inout hs h, inout m_t m) { apply {} }
control I(inout hs h, inout m_t m, inout standard_metadata_t s) { apply { s.egress_spec = 1; } }
control E(inout hs h, inout m_t m, inout standard_metadata_t s) { apply {} }
control C(inout hs h, inout m_t m) { apply {} }
control D(packet_out p, in hs h) { apply { p.emit(h.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""
OTHER_USER = 12345
needs_root = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                                reason="giving a file to another user needs root")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    root = tmp_path / "cache"
    monkeypatch.setenv("DATAPLANE_CACHE_DIR", str(root))
    monkeypatch.delenv("DATAPLANE_CACHE", raising=False)
    monkeypatch.setattr(cache_files, "_warned", set())
    return root


@pytest.fixture
def prog(tmp_path):
    path = tmp_path / "p.p4"
    path.write_text(PROGRAM)
    return path


def _entry(root):
    (entry,) = root.rglob("*.pickle")
    return entry


def _spoil(path, how: str) -> None:
    if how == "owner":
        os.chown(path, OTHER_USER, -1)
    else:
        os.chmod(path, os.stat(path).st_mode | {"g+w": stat.S_IWGRP, "o+w": stat.S_IWOTH}[how])


HOWS = ["g+w", "o+w", pytest.param("owner", marks=needs_root)]


def test_the_cache_folders_are_made_private(cache, prog):
    """0700 whatever the umask (here 0, which would leave a plain mkdir open to everyone)."""
    old = os.umask(0)
    try:
        compile_file_cached(prog)
    finally:
        os.umask(old)
    entry = _entry(cache)
    for folder in (cache, entry.parent):
        assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700, folder


def test_a_private_entry_is_a_hit_and_read_permission_for_others_does_not_matter(cache, prog, capsys):
    compile_file_cached(prog)
    os.chmod(_entry(cache), 0o644)
    assert compile_file_cached(prog).timings["cache"] == 1.0
    assert "warning" not in capsys.readouterr().err


@pytest.mark.parametrize("how", HOWS)
def test_a_compiled_program_others_may_have_written_is_not_loaded(cache, prog, capsys, how):
    compile_file_cached(prog)
    entry = _entry(cache)
    _spoil(entry, how)
    assert compile_file_cached(prog).timings["cache"] == 0.0
    err = capsys.readouterr().err
    assert f"warning: cache: {entry}: " in err and "it is not used" in err
    assert err.count("warning") == 1
    st = os.stat(entry)                    # the miss wrote a private entry of this user's in its place
    assert st.st_uid == os.geteuid() and stat.S_IMODE(st.st_mode) == 0o600
    assert compile_file_cached(prog).timings["cache"] == 1.0 and capsys.readouterr().err == ""


@pytest.mark.parametrize("which", ["root", "sub"])
@pytest.mark.parametrize("how", HOWS)
def test_a_cache_folder_others_may_write_is_not_used(cache, prog, capsys, how, which):
    compile_file_cached(prog)
    folder = cache if which == "root" else _entry(cache).parent
    _spoil(folder, how)
    assert compile_file_cached(prog).timings["cache"] == 0.0
    assert f"warning: cache: {folder}: the folder " in capsys.readouterr().err


def _code_text() -> str:
    return "".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(400))    # past the cache's minimum size


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="the code cache is CPython's")
@pytest.mark.parametrize("how", [None, *HOWS])
def test_generated_code_others_may_have_written_is_not_loaded(cache, monkeypatch, capsys, how):
    """A planted entry (code returning 'planted') runs only when the cache may trust it."""
    code_cache.compiled(_code_text(), "<gen>")
    (entry,) = (cache / "code").glob("*.marshal")
    entry.write_bytes(marshal.dumps(compile("def f3(x):\n    return 'planted'\n", "<gen>", "exec")))
    if how is not None:
        _spoil(entry, how)
    ns: dict = {}
    exec(code_cache.compiled(_code_text(), "<gen>"), ns)
    assert ns["f3"](10) == ("planted" if how is None else 13)
    assert ("warning: cache:" in capsys.readouterr().err) == (how is not None)


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="the method cache is CPython's")
@pytest.mark.parametrize("how", [None, *HOWS])
def test_dataclass_methods_others_may_have_written_are_not_loaded(cache, capsys, how):
    methods = records._MethodCode()
    source = "x = 1\n"
    path = methods.path()
    os.makedirs(os.path.dirname(path), mode=0o700)
    with open(path, "wb") as f:
        marshal.dump({source: compile("x = 'planted'\n", "<string>", "exec")}, f)
    os.chmod(path, 0o600)
    if how is not None:
        _spoil(path, how)
    ns: dict = {}
    methods.exec(source, ns)
    assert ns["x"] == ("planted" if how is None else 1)
    assert ("warning: cache:" in capsys.readouterr().err) == (how is not None)
