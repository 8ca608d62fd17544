"""tools/conformance.py --repo: any checkout's programs, with its include paths and defines."""
from __future__ import annotations

from pathlib import Path

import pytest

_PROGRAM = """#include <core.p4>
#include <v1model.p4>
#include <defs.p4>
struct H {} struct M {}
parser P(packet_in p, out H h, inout M m, inout standard_metadata_t s) { state start { transition accept; } }
control C(inout H h, inout M m) { apply {} }
control I(inout H h, inout M m, inout standard_metadata_t s) {
    action fwd(port_t port) { s.egress_spec = port; }
    table t { key = { s.ingress_port : exact; } actions = { fwd; NoAction; } size = TABLE_SIZE; }
    apply { t.apply(); }
}
control D(packet_out p, in H h) { apply {} }
V1Switch(P(), C(), I(), I(), C(), D()) main;
"""


@pytest.fixture(scope="module")
def repo_tool(load_tool):
    return load_tool("conformance_repo")


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "defs.p4").write_text("typedef bit<9> port_t;\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "sw.p4").write_text(_PROGRAM)
    (tmp_path / "src" / "part.p4").write_text("header h_t { bit<8> f; }\n")   # included, not a program
    return tmp_path


def _options(checkout: Path, **defines) -> dict:
    return {"include_dirs": [str(checkout / "include")], "defines": defines, "p4info_ignore": []}


def test_programs_are_the_files_that_instantiate_main(repo_tool, checkout):
    """A .p4 file without ``... main;`` is something programs include, not a program."""
    assert [p.name for p in repo_tool.find_programs(checkout)] == ["sw.p4"]


def test_a_program_may_instantiate_main_in_a_file_it_includes(repo_tool, checkout):
    """DASH's layout: pipeline.p4 includes target/v1.p4, which instantiates main; the program is
    pipeline.p4, and the included file is not one."""
    (checkout / "src" / "target").mkdir()
    (checkout / "src" / "target" / "v1.p4").write_text("V1Switch(P(), C(), I(), I(), C(), D()) main;\n")
    (checkout / "src" / "pipeline.p4").write_text('#include "target/v1.p4"\n')
    assert [p.name for p in repo_tool.find_programs(checkout)] == ["pipeline.p4", "sw.p4"]


def test_include_paths_and_defines_reach_the_compiler(repo_tool, checkout):
    """Without the -I directory the include is missing; with it but without -D the table size is an
    undefined name; with both the program compiles, loads and writes P4Info with that size."""
    prog = str(checkout / "src" / "sw.p4")

    def run(options):
        return repo_tool.run_repo(prog, {"path": prog}, options, lambda m: m)

    no_include = run({"include_dirs": [], "defines": {}})
    assert no_include["status"] == "fail" and "defs.p4" in no_include["message"]
    no_define = run(_options(checkout))
    assert no_define["status"] == "fail" and "TABLE_SIZE" in no_define["message"]
    ok = run(_options(checkout, TABLE_SIZE="77"))
    assert (ok["status"], ok["load"]) == ("pass", "pass")
    pytest.importorskip("p4.config.v1.p4info_pb2")     # P4Info's protobuf (not on PyPy)
    assert ok["p4info"] == "built"


def test_a_committed_p4info_is_compared(repo_tool, checkout):
    """A golden P4Info beside the program is compared field by field: equal, then one table size
    off by one is a difference; --p4info-ignore leaves a field out of the comparison."""
    pytest.importorskip("p4.config.v1.p4info_pb2")     # P4Info's protobuf (not on PyPy)
    from google.protobuf import text_format

    from dataplane.control.p4info import build_p4info
    from dataplane.lang.frontend import compile_file

    prog = checkout / "src" / "sw.p4"
    program = compile_file(str(prog), include_dirs=[checkout / "include"], defines={"TABLE_SIZE": "77"}).program
    info = build_p4info(program)
    assert info.tables[0].size == 77
    golden = checkout / "src" / "sw.p4info.txtpb"
    golden.write_text(text_format.MessageToString(info))
    out = repo_tool.run_repo(str(prog), {}, _options(checkout, TABLE_SIZE="77"), lambda m: m)
    assert out["p4info"] == "identical"
    info.tables[0].size = 78
    golden.write_text(text_format.MessageToString(info))
    out = repo_tool.run_repo(str(prog), {}, _options(checkout, TABLE_SIZE="77"), lambda m: m)
    assert out["p4info"] == "different" and "size" in out["p4info_message"]
    options = dict(_options(checkout, TABLE_SIZE="77"), p4info_ignore=["tables.size"])
    assert repo_tool.run_repo(str(prog), {}, options, lambda m: m)["p4info"] == "identical"
