"""The PNA architecture (pna.p4 + PnaNic): direction by port, send_to_port/drop_packet, externs."""
from __future__ import annotations

import shutil
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from dataplane.arch.pna import PnaNic
from dataplane.arch.v1model import ArchitectureError
from dataplane.control.switch import Switch
from dataplane.engine.pna_externs import InternetChecksum
from dataplane.lang.frontend import compile_file
from dataplane.testing.stf_runner import run_stf_file

HERE = Path(__file__).parent
FWD = HERE / "pna_fwd.p4"
EXTERNS = HERE / "pna_externs.p4"


def _csum(data: bytes) -> int:
    """RFC 1071, written out independently of the engine."""
    s = sum(int.from_bytes(data[i:i + 2], "big") for i in range(0, len(data), 2))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def _ipv4(ttl: int) -> bytes:
    hdr = bytearray(bytes.fromhex("4500001c00010000") + bytes([ttl, 0x11]) + b"\0\0" + bytes([10, 0, 0, 1, 10, 0, 0, 2]))
    hdr[10:12] = _csum(bytes(hdr)).to_bytes(2, "big")
    return bytes(hdr)


def _frame(dst: str, ttl: int = 64) -> bytes:
    return bytes.fromhex(dst + "020000000009" + "0800") + _ipv4(ttl) + b"payload!"


def test_program_is_pna_and_switch_picks_pna_nic():
    program = compile_file(FWD).program
    assert program.architecture == "pna"
    assert isinstance(Switch(program).dp, PnaNic)


def test_net_to_host_by_table_with_ttl_and_checksum_rewritten_byte_exactly():
    sw = Switch.from_file(FWD)
    out = sw.process(0, _frame("020000000002"))
    assert [(o.port, o.data) for o in out.outputs] == [(2, _frame("020000000002", ttl=63))]
    out = sw.process(1, _frame("020000000003"))
    assert [(o.port, o.data) for o in out.outputs] == [(3, _frame("020000000003", ttl=63))]


def test_unknown_destination_from_the_net_is_dropped():
    sw = Switch.from_file(FWD)
    out = sw.process(0, _frame("0200000000ff"))
    assert out.outputs == [] and out.drops == ["dropped in main control (drop_packet, or no send_to_port)"]


def test_host_to_net_uses_select_by_direction_and_keeps_non_ip_bytes():
    sw = Switch.from_file(FWD)
    assert [(o.port, o.data) for o in sw.process(2, _frame("0200000000ff")).outputs] == \
        [(0, _frame("0200000000ff", ttl=63))]
    arp = bytes.fromhex("0200000000ff0200000000090806") + b"\x01" * 28
    assert [(o.port, o.data) for o in sw.process(3, arp).outputs] == [(0, arp)]


def test_register_counts_packets_per_input_port():
    sw = Switch.from_file(FWD)
    for port in (0, 0, 2, 3, 3, 3):
        sw.process(port, _frame("0200000000ff"))
    assert [sw.register_read("pkts", i) for i in range(4)] == [2, 0, 1, 3]


def test_net_ports_are_configurable():
    nic = PnaNic(compile_file(FWD).program, net_ports={2, 3})
    # port 0 is now a host port: host -> net goes to port 0 regardless of the table
    assert [o.port for o in nic.process(0, _frame("0200000000ff")).outputs] == [0]
    assert nic.process(2, _frame("0200000000ff")).outputs == []


def test_stf_and_runtime_table_entries_work_on_pna(tmp_path):
    stf = tmp_path / "t.stf"
    stf.write_text("add MainControlImpl.host_fwd hdr.eth.dst:0x020000000005 MainControlImpl.to_host(port:5)\n"
                   "packet 0 020000000005 020000000009 0806\n"
                   "expect 5 020000000005 020000000009 0806\n"
                   "packet 0 020000000007 020000000009 0806\n")
    result = run_stf_file(FWD, stf)
    assert result.passed, result.report()
    assert result.outputs == {5: [bytes.fromhex("0200000000050200000000090806")]}


def test_hash_counter_meter_checksum_subtract_and_is_host_port():
    sw = Switch.from_file(EXTERNS)
    eth = bytes.fromhex("0200000000010a0b0c0d0e0f0800")
    src_sum = _csum(bytes.fromhex("0a0b0c0d0e0f"))
    crc = zlib.crc32(bytes.fromhex("0a0b0c0d0e0f")) & 0xFFFF
    res = lambda color, host: crc.to_bytes(2, "big") + src_sum.to_bytes(2, "big") + bytes([color, host])
    assert [(o.port, o.data) for o in sw.process(0, eth).outputs] == [(3, eth + res(1, 0))]
    assert [(o.port, o.data) for o in sw.process(2, eth).outputs] == [(3, eth + res(1, 1))]
    assert sw.counter_read("cnt", 0) == (1, 14) and sw.counter_read("cnt", 2) == (1, 14)
    sw.meter_set_rates("m", 1, [(0.000001, 1), (0.000001, 1)])
    colors = [sw.process(1, eth).outputs[0].data[-2] for _ in range(2)]
    assert colors == [1, 0]   # GREEN, then RED (PNA_MeterColor_t order: RED, GREEN, YELLOW)
    assert sw.dp.mirror_misses == {5: 4}   # mirror_packet(1, 5) each time; session 5 not configured: no copy


def test_add_entry_learns_on_miss_and_the_next_packet_hits():
    sw = Switch.from_file(EXTERNS)
    pkt = bytes.fromhex("0200000000010a0b0c0d0e0f9999")
    assert sw.table_entries("C.flows") == []
    first = sw.process(0, pkt).outputs[0].data
    assert first[-2] == 1                      # miss: learn ran, color left GREEN
    entries = sw.table_entries("C.flows")
    assert [(e.name, e.args, e.key) for e in entries] == [("set_mark", (7,), (0x0a0b0c0d0e0f,))]
    assert sw.process(0, pkt).outputs[0].data[-2] == 7   # hit: set_mark(7)
    other = bytes.fromhex("0200000000010a0b0c0d0e109999")
    assert sw.process(0, other).outputs[0].data[-2] == 1  # a new source misses again
    assert len(sw.table_entries("C.flows")) == 2


def test_internet_checksum_add_subtract_and_state():
    ck = InternetChecksum("ck")
    ck.add(None, ((True, 0x4500, 16), (True, 0x0030, 16)))
    ck.add(None, b"\x12\x34")
    ck.subtract(None, ((True, 0x1234, 16),))
    assert ck.get(None) == _csum(bytes.fromhex("45000030"))
    state = ck.get_state(None)
    ck.clear(None)
    ck.set_state(None, state)
    assert ck.get(None) == _csum(bytes.fromhex("45000030"))


def test_v1model_program_is_refused_by_pna_nic():
    with pytest.raises(ArchitectureError):
        PnaNic(compile_file(HERE / "assert_prog.p4").program)


def test_compile_command_summarises_a_pna_program():
    exe = shutil.which("dataplane")
    cmd = [exe] if exe else [sys.executable, "-c", "from dataplane.cli import run; run()"]
    done = subprocess.run([*cmd, "compile", str(FWD)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "architecture pna: main = PNA_NIC(main_parser=MainParserImpl" in done.stdout


HASH_AND_LEARN = """
#include <core.p4>
#include <pna.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header out_t { bit<16> ranged; bit<16> zero_max; bit<32> full; bit<8> mark; bit<16> port; }
struct headers_t { ethernet_t eth; out_t res; }
struct meta_t { }
struct mark_params_t { bit<8> v; bit<16> p; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, in pna_main_parser_input_metadata_t istd) {
    state start { pkt.extract(hdr.eth); transition accept; }
}
control Pre(in headers_t hdr, inout meta_t meta, in pna_pre_input_metadata_t istd,
            inout pna_pre_output_metadata_t ostd) { apply { } }
control C(inout headers_t hdr, inout meta_t meta, in pna_main_input_metadata_t istd,
          inout pna_main_output_metadata_t ostd) {
    Hash<bit<16>>(PNA_HashAlgorithm_t.TARGET_DEFAULT) h16;
    Hash<bit<32>>(PNA_HashAlgorithm_t.CRC32) h32;
    action set_mark(bit<8> v, bit<16> p) { hdr.res.mark = v; hdr.res.port = p; }
    action learn() {
        mark_params_t params;
        params.v = 9;
        params.p = hdr.eth.etype;
        add_entry(action_name = "set_mark", action_params = params,
                  expire_time_profile_id = (ExpireTimeProfileId_t) 0);
    }
    table flows {
        key = { hdr.eth.src: exact; }
        actions = { set_mark; learn; }
        default_action = learn;
    }
    apply {
        hdr.res.setValid();
        hdr.res.ranged = h16.get_hash(16w49152, {hdr.eth.src}, 16w16384);
        hdr.res.zero_max = h16.get_hash(16w7, {hdr.eth.src}, 16w0);
        hdr.res.full = h32.get_hash({hdr.eth.src});
        flows.apply();
        send_to_port((PortId_t)3);
    }
}
control D(packet_out pkt, in headers_t hdr, in meta_t meta, in pna_main_output_metadata_t ostd) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.res); }
}
PNA_NIC(P(), Pre(), C(), D()) main;
"""


def _hash_and_learn(tmp_path) -> Switch:
    path = tmp_path / "hash_and_learn.p4"
    path.write_text(HASH_AND_LEARN)
    return Switch.from_file(path)


def test_hash_get_hash_with_base_and_max_is_base_plus_hash_modulo_max(tmp_path):
    """PNA's get_hash(base, data, max) = base + h % max (max 0 gives base); get_hash(data) keeps all of O."""
    sw = _hash_and_learn(tmp_path)
    for src in ("0a0b0c0d0e0f", "0a0b0c0d0e10", "ffffffffffff"):
        eth = bytes.fromhex("020000000001" + src + "1234")
        res = sw.process(0, eth).outputs[0].data[14:]
        crc = zlib.crc32(bytes.fromhex(src))
        assert int.from_bytes(res[0:2], "big") == 49152 + crc % 16384
        assert int.from_bytes(res[2:4], "big") == 7
        assert int.from_bytes(res[4:8], "big") == crc


def test_add_entry_takes_the_action_params_as_a_struct(tmp_path):
    """p4c's samples pass add_entry a struct whose fields are the action's parameters, in order."""
    sw = _hash_and_learn(tmp_path)
    eth = bytes.fromhex("0200000000010a0b0c0d0e0f4321")
    assert sw.process(0, eth).outputs[0].data[-3:] == b"\x00\x00\x00"    # miss: learned, nothing set
    assert [(e.name, e.args, e.key) for e in sw.table_entries("C.flows")] == [("set_mark", (9, 0x4321), (0x0a0b0c0d0e0f,))]
    assert sw.process(0, eth).outputs[0].data[-3:] == b"\x09\x43\x21"    # hit: set_mark(9, 0x4321)


def test_add_entry_with_the_wrong_number_of_params_is_an_error(tmp_path):
    """An action_params list that does not fit the action is refused, not silently run."""
    path = tmp_path / "bad_learn.p4"
    path.write_text(HASH_AND_LEARN.replace("action_params = params", "action_params = {8w1}"))
    sw = Switch.from_file(path)
    with pytest.raises(ArchitectureError, match="takes 2 parameter"):
        sw.process(0, bytes.fromhex("0200000000010a0b0c0d0e0f4321"))


def test_add_entry_in_a_sub_control_names_the_instance_s_action(tmp_path):
    """In a table inlined from a sub-control instance, add_entry's action name is that control's action."""
    src = HASH_AND_LEARN.replace("""control C(inout headers_t hdr, inout meta_t meta, in pna_main_input_metadata_t istd,
          inout pna_main_output_metadata_t ostd) {""", """control Learn(inout headers_t hdr) {""")
    src = src.replace("""    apply {
        hdr.res.setValid();""", """    apply { flows.apply(); }
}
control C(inout headers_t hdr, inout meta_t meta, in pna_main_input_metadata_t istd,
          inout pna_main_output_metadata_t ostd) {
    Learn() l;
    apply {
        hdr.res.setValid();""").replace("        flows.apply();\n        send_to_port", "        l.apply(hdr);\n        send_to_port")
    src = src.replace("    Hash<bit<16>>(PNA_HashAlgorithm_t.TARGET_DEFAULT) h16;\n    Hash<bit<32>>(PNA_HashAlgorithm_t.CRC32) h32;\n", "")
    src = src.replace("    Learn() l;\n", "    Learn() l;\n    Hash<bit<16>>(PNA_HashAlgorithm_t.TARGET_DEFAULT) h16;\n"
                                           "    Hash<bit<32>>(PNA_HashAlgorithm_t.CRC32) h32;\n")
    path = tmp_path / "sub_learn.p4"
    path.write_text(src)
    sw = Switch.from_file(path)
    eth = bytes.fromhex("0200000000010a0b0c0d0e0f4321")
    sw.process(0, eth)
    assert [(e.name, e.args) for e in sw.table_entries("C.l.flows")] == [("l.set_mark", (9, 0x4321))]
    assert sw.process(0, eth).outputs[0].data[-3:] == b"\x09\x43\x21"
