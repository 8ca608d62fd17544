"""PNA v0.7 programs: the 3-block PNA_NIC next to the older 4-block form, v0.7 metadata,
SelectByDirection with a bool selector, and DirectCounter (pna_direct_counter)."""
from __future__ import annotations

from pathlib import Path

import pytest

from dataplane.arch.pna import PnaNic
from dataplane.control.switch import Switch
from dataplane.engine.externs import ExternError
from dataplane.errors import CompileError
from dataplane.ir.summary import summarize
from dataplane.lang.frontend import compile_file, compile_source

HERE = Path(__file__).parent
V07 = HERE / "pna_v07.p4"
OLD = HERE / "pna_fwd.p4"

NET_SRC, HOST_SRC = "0a0000000001", "0b0000000001"   # what pna_v07.p4 writes into eth.src


def frame(dst: str, src: str = "020000000009", etype: str = "0800", payload: bytes = b"payload!") -> bytes:
    return bytes.fromhex(dst + src + etype) + payload


def v07_switch() -> Switch:
    sw = Switch.from_file(V07)            # ports 0-1 are net ports, 2-3 host ports
    sw.table_add("L2_fwd", "L2_send_to_port", ["0x020000000002"], [2])
    sw.table_add("L2_fwd", "L2_send_to_port", ["0x020000000005"], [0])
    return sw


def test_three_block_package_has_no_pre_control_slot():
    program = compile_file(V07).program
    assert program.architecture == "pna"
    assert [slot for slot, _ in program.package.blocks] == ["main_parser", "main_control", "main_deparser"]
    assert isinstance(Switch(program).dp, PnaNic)


def test_four_block_package_keeps_its_pre_control_slot():
    program = compile_file(OLD).program
    assert program.package.blocks == (("main_parser", "MainParserImpl"), ("pre_control", "PreControlImpl"),
                                       ("main_control", "MainControlImpl"), ("main_deparser", "MainDeparserImpl"))


def test_compile_summary_names_the_three_slots():
    text = summarize(compile_file(V07).program)
    assert ("main = PNA_NIC(main_parser=MainParserImpl, main_control=MainControlImpl, "
            "main_deparser=MainDeparserImpl)") in text


def test_v07_program_forwards_by_table_and_rewrites_source_by_side():
    """is_net_port + SelectByDirection(bool, ...): the net side gets one source MAC, the host side the other."""
    sw = v07_switch()
    out = sw.process(0, frame("020000000002"))
    assert [(o.port, o.data) for o in out.outputs] == [(2, frame("020000000002", NET_SRC))]
    out = sw.process(3, frame("020000000005"))
    assert [(o.port, o.data) for o in out.outputs] == [(0, frame("020000000005", HOST_SRC))]


def test_v07_unknown_destination_is_dropped():
    out = v07_switch().process(1, frame("0200000000ff"))
    assert out.outputs == [] and out.drops == ["dropped in main control (drop_packet, or no send_to_port)"]


def test_parser_error_reaches_the_main_control_in_istd():
    """A tagged frame (0x88b5) cut short: PacketTooShort in istd.parser_error, which the program drops on."""
    sw = v07_switch()
    assert [o.port for o in sw.process(0, frame("020000000002", etype="88b5", payload=b"\x00\x07")).outputs] == [2]
    out = sw.process(0, frame("020000000002", etype="88b5", payload=b"\x00"))
    assert out.outputs == [] and len(out.drops) == 1


def test_direct_counter_counts_the_matched_entry_and_not_misses():
    sw = v07_switch()
    handles = [e.handle for e in sw.table_entries("L2_fwd")]
    for dst in ("020000000002", "020000000002", "020000000005", "0200000000ff"):
        sw.process(0, frame(dst))
    size = len(frame("020000000002"))
    assert sw.counter_read("fwd_count", handles[0]) == (2, 2 * size)
    assert sw.direct_counter_read("L2_fwd", handles[1]) == (1, size)
    sw.counter_reset("fwd_count")
    assert sw.counter_read("fwd_count", handles[0]) == (0, 0)


DIRECT = """
#include <core.p4>
#include <pna.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
struct headers_t { ethernet_t eth; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, in pna_main_parser_input_metadata_t istd) {
    state start { pkt.extract(hdr.eth); transition accept; }
}
control C(inout headers_t hdr, inout meta_t meta, in pna_main_input_metadata_t istd,
          inout pna_main_output_metadata_t ostd) {
    DirectCounter<bit<64>>(PNA_CounterType_t.PACKETS_AND_BYTES) c;
    action by_100() { c.count(32w100); send_to_port((PortId_t)1); }
    action wrong() { c.count(); send_to_port((PortId_t)1); }
    table t {
        key = { hdr.eth.dst: exact; }
        actions = { by_100; }
        const entries = { 0x020000000001 : by_100(); }
        pna_direct_counter = c;
    }
    table other {
        key = { hdr.eth.dst: exact; }
        actions = { wrong; }
        const entries = { 0x020000000002 : wrong(); }
    }
    apply { t.apply(); other.apply(); }
}
control D(packet_out pkt, in headers_t hdr, in meta_t meta, in pna_main_output_metadata_t ostd) {
    apply { pkt.emit(hdr.eth); }
}
PNA_NIC(P(), C(), D()) main;
"""


def test_direct_counter_increment_is_added_to_the_bytes(tmp_path):
    path = tmp_path / "direct.p4"
    path.write_text(DIRECT)
    sw = Switch.from_file(path)
    handle = sw.table_entries("t")[0].handle
    sw.process(0, frame("020000000001"))
    sw.process(0, frame("020000000001"))
    assert sw.counter_read("c", handle) == (2, 200)


def test_direct_counter_count_in_another_tables_action_is_an_error(tmp_path):
    path = tmp_path / "direct.p4"
    path.write_text(DIRECT)
    with pytest.raises(ExternError, match="count\\(\\) must be called in an action of the table"):
        Switch.from_file(path).process(0, frame("020000000002"))


PRE_META = """
#include <core.p4>
#include <pna.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
struct headers_t { ethernet_t eth; }
struct meta_t { bit<16> mark; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, in pna_main_parser_input_metadata_t istd) {
    state start { pkt.extract(hdr.eth); transition accept; }
}
control Pre(in headers_t hdr, inout meta_t meta, in pna_pre_input_metadata_t istd,
            inout pna_pre_output_metadata_t ostd) {
    apply { meta.mark = hdr.eth.etype + 1; }
}
control C(inout headers_t hdr, inout meta_t meta, in pna_main_input_metadata_t istd,
          inout pna_main_output_metadata_t ostd) {
    apply { hdr.eth.etype = meta.mark; send_to_port((PortId_t)2); }
}
control D(packet_out pkt, in headers_t hdr, in meta_t meta, in pna_main_output_metadata_t ostd) {
    apply { pkt.emit(hdr.eth); }
}
"""


def test_four_block_form_runs_its_pre_control_before_the_main_control():
    program = compile_source(PRE_META + "PNA_NIC(P(), Pre(), C(), D()) main;\n", "pre.p4").program
    out = Switch(program).process(0, frame("020000000002", etype="1233", payload=b""))
    assert [(o.port, o.data) for o in out.outputs] == [(2, frame("020000000002", etype="1234", payload=b""))]


def test_package_with_the_wrong_number_of_blocks_names_both_forms():
    with pytest.raises(CompileError, match=r"package 'PNA_NIC' takes 3 or 4 argument\(s\), got 2"):
        compile_source(PRE_META + "PNA_NIC(P(), C()) main;\n", "two.p4")


def test_three_block_form_refuses_a_pre_control_in_the_control_slot():
    """With three arguments the second one is the main control: a pre-control does not fit it."""
    with pytest.raises(CompileError, match="'Pre' .* as in 'MainControlT'"):
        compile_source(PRE_META + "PNA_NIC(P(), Pre(), D()) main;\n", "wrong.p4")


def test_select_by_direction_takes_the_older_direction_enum_too():
    """pna_fwd.p4 selects with istd.direction: host-to-net picks the second value (port 0)."""
    sw = Switch.from_file(OLD)
    assert [o.port for o in sw.process(2, frame("0200000000ff", etype="0806")).outputs] == [0]


def _arch_without(tmp_path: Path, *drop: str) -> Path:
    """pna_v07.p4 beside a pna.p4 that lacks the declarations named in ``drop`` (cut from the
    bundled one), as p4lang/pna's own pna.p4 has no pre-control and none of its structs."""
    import re

    import dataplane

    text = (Path(dataplane.__file__).parent / "p4include" / "pna.p4").read_text()
    for name in drop:   # a struct, a control type or the older package, each up to its end
        pattern = r"/\* Older PNA[^;]*;" if name == "Older" else rf"struct {name} \{{[^}}]*\}}|control {name}[^;]*;"
        text, n = re.subn(rf"\n({pattern})", "\n", text)
        assert n == 1, name
    (tmp_path / "pna.p4").write_text(text)
    program = tmp_path / "prog.p4"
    program.write_text(V07.read_text().replace("#include <pna.p4>", '#include "pna.p4"'))
    return program


def test_a_pna_p4_without_the_pre_control_loads_and_forwards(tmp_path):
    """p4lang/pna's pna.p4 (no PreControlT, no pna_pre_*_metadata_t): the NIC loads and forwards."""
    prog = _arch_without(tmp_path, "pna_pre_input_metadata_t", "pna_pre_output_metadata_t", "PreControlT", "Older")
    assert "pna_pre_input_metadata_t" not in (tmp_path / "pna.p4").read_text()
    sw = Switch.from_file(prog)
    sw.table_add("L2_fwd", "L2_send_to_port", ["0x020000000002"], [2])
    assert [o.port for o in sw.send(0, frame("020000000002"))] == [2]


def test_a_pna_p4_without_a_metadata_struct_is_a_clear_refusal(tmp_path):
    """A pna.p4 lacking a struct the PNA blocks take (their types name it) is a compile error
    naming it, so the loader never looks for a struct that is not there."""
    prog = _arch_without(tmp_path, "pna_main_output_metadata_t")
    with pytest.raises(CompileError, match="pna_main_output_metadata_t"):
        Switch.from_file(prog)
