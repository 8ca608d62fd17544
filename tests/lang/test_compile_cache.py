"""The compile cache: a second compile of the same program is a hit with the same program and
warnings; a changed include, a changed policy, a damaged entry or ``DATAPLANE_CACHE=off`` never
hands back an old entry."""
from __future__ import annotations

from pathlib import Path

import pytest

from dataplane.diagnostics import WarningPolicy
from dataplane.ir.serialize import program_to_json as to_json
from dataplane.lang import compile_cache
from dataplane.lang.compile_cache import compile_file_cached
from dataplane.lang.frontend import compile_file

PROGRAM = """#include <core.p4>
#include <v1model.p4>
#include "defs.p4"
struct meta_t {}
struct headers_t { ethernet_t ethernet; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.ethernet); transition accept; }
}
control V(inout headers_t hdr, inout meta_t m) { apply {} }
control I(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    bit<8> unused;
    apply { sm.egress_spec = PORT; }
}
control E(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply {} }
control C(inout headers_t hdr, inout meta_t m) { apply {} }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""
DEFS = "header ethernet_t { bit<48> dst; bit<48> src; bit<16> type; }\nconst bit<9> PORT = {};\n"


@pytest.fixture
def prog(tmp_path, monkeypatch):
    monkeypatch.setenv("DATAPLANE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("DATAPLANE_CACHE", raising=False)
    (tmp_path / "defs.p4").write_text(DEFS.replace("{}", "3"))
    path = tmp_path / "p.p4"
    path.write_text(PROGRAM)
    return path


def entries(tmp_path):
    return sorted((tmp_path / "cache").rglob("*.pickle"))


def test_second_compile_is_a_hit_with_the_same_program_and_warnings(prog, tmp_path):
    first = compile_file_cached(prog)
    second = compile_file_cached(prog)
    assert first.timings["cache"] == 0.0 and second.timings["cache"] == 1.0
    assert len(entries(tmp_path)) == 1
    assert to_json(second.program) == to_json(compile_file(prog).program)
    rendered = [w.render() for w in second.warnings]
    assert rendered == [w.render() for w in compile_file(prog).warnings] and "[unused]" in rendered[0]


def test_a_changed_include_or_policy_misses(prog, tmp_path):
    compile_file_cached(prog)
    (tmp_path / "defs.p4").write_text(DEFS.replace("{}", "5"))
    changed = compile_file_cached(prog)
    assert changed.timings["cache"] == 0.0 and to_json(changed.program) == to_json(compile_file(prog).program)
    quiet = compile_file_cached(prog, warnings=WarningPolicy(frozenset({"unused"})))
    assert quiet.timings["cache"] == 0.0 and not quiet.warnings
    assert len(entries(tmp_path)) == 3


def test_a_damaged_entry_is_a_miss_and_is_replaced(prog, tmp_path):
    compile_file_cached(prog)
    [entry] = entries(tmp_path)
    entry.write_bytes(entry.read_bytes()[:40])
    again = compile_file_cached(prog)
    assert again.timings["cache"] == 0.0
    assert compile_file_cached(prog).timings["cache"] == 1.0


def test_off_writes_nothing(prog, tmp_path, monkeypatch):
    monkeypatch.setenv("DATAPLANE_CACHE", "off")
    assert "cache" not in compile_file_cached(prog).timings
    assert not (tmp_path / "cache").exists()


def test_a_changed_compiler_misses(prog, tmp_path, monkeypatch):
    compile_file_cached(prog)
    monkeypatch.setattr(compile_cache, "compiler_hash", lambda: "another compiler")
    assert compile_file_cached(prog).timings["cache"] == 0.0


def test_every_front_end_module_is_in_the_compiler_hash():
    """An edited module of the front end, in lang/ or in any of its folders (preprocess/, build/,
    check/, inline/), or of ir/, is another compiler: its entries are never handed back."""
    import os

    import dataplane

    package = Path(dataplane.__file__).resolve().parent
    modules = sorted(p for folder in ("lang", "ir") for p in (package / folder).rglob("*.py"))
    assert any(p.parent.parent == package / "lang" for p in modules)   # modules in lang's folders
    unseen = []
    for path in modules:
        st = path.stat()
        compile_cache.compiler_hash.cache_clear()
        before = compile_cache.compiler_hash()
        try:
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
            compile_cache.compiler_hash.cache_clear()
            if compile_cache.compiler_hash() == before:
                unseen.append(str(path.relative_to(package)))
        finally:
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
            compile_cache.compiler_hash.cache_clear()
    assert unseen == []


def test_the_least_recently_used_entries_go_past_keep(prog, tmp_path, monkeypatch):
    monkeypatch.setattr(compile_cache, "KEEP", 2)
    compile_file_cached(prog)                                   # entry A
    for value in ("5", "7"):                                    # entries B, then C: A goes
        (tmp_path / "defs.p4").write_text(DEFS.replace("{}", value))
        compile_file_cached(prog)
    assert len(entries(tmp_path)) == 2
    assert compile_file_cached(prog).timings["cache"] == 1.0    # C is still there
    (tmp_path / "defs.p4").write_text(DEFS.replace("{}", "3"))
    assert compile_file_cached(prog).timings["cache"] == 0.0    # A was removed


def test_a_hit_imports_neither_lark_nor_package_metadata(prog, tmp_path):
    """A hit is the start of every repeated command: it must not pay for the parser."""
    import os
    import subprocess
    import sys

    compile_file_cached(prog)
    code = ("import sys\nfrom dataplane.lang.compile_cache import compile_file_cached\n"
            f"compile_file_cached({str(prog)!r})\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'lark' or m == 'importlib.metadata'))")
    # The child imports the very package this process uses (CI installs it, and the checkout
    # in the working directory would shadow it: another package, another compiler hash).
    import dataplane

    root = str(Path(dataplane.__file__).resolve().parent.parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True,
                         check=True)
    assert out.stdout == "[]\n"
