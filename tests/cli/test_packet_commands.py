"""`dataplane run-packet` and `dataplane test`, run as a user runs them: a process each (a fork of
one that has imported the package, ``CommandForks``), exit status and output as the shell sees them."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.utils import rdpcap, wrpcap

from dataplane.resources import data_dir
from dataplane.testing.forks import CommandForks, Finished

# A process per command: 45 s under PyPy against 8 here,
# and the engine's PyPy runs are tests/engine's and tests/stf's, in-process.
pytestmark = pytest.mark.no_pypy

ROUTER_JSON = data_dir("programs") / "ipv4_router.json"
STF_DIR = Path(__file__).parent.parent / "stf"

# 10.0.1.1 (-> port 1 by ipv4_router.json) and 11.0.0.1 (no route: dropped)
TO_PORT_1 = "000000000002 000000000001 0800 45000014 00010000 40110000 c0000201 0a000101"
NO_ROUTE = "000000000002 000000000001 0800 45000014 00010000 40110000 c0000201 0b000001"


_FORKS: list[CommandForks] = []


@pytest.fixture(scope="module", autouse=True)
def _forks():
    _FORKS.append(CommandForks())
    yield
    _FORKS.pop().close()


def run(*args: str, cwd: Path | None = None) -> Finished:
    return _FORKS[-1].run(list(args), cwd or Path.cwd(), timeout=120)


def packet(dst: str, payload: bytes = b"") -> Ether:
    return Ether(dst="00:00:00:00:00:02", src="00:00:00:00:00:01") / IP(src="192.0.2.1", dst=dst, ttl=64) \
        / UDP(sport=1000, dport=2000) / payload


# ---- run-packet ---------------------------------------------------------------------------------

def test_run_packet_hex():
    r = run("run-packet", "ipv4_router", "--entries", str(ROUTER_JSON), "--port", "3", "--packet", TO_PORT_1)
    assert r.returncode == 0, r.stderr
    # new destination MAC from the entry, old destination as source, TTL 0x40 -> 0x3f, checksum 0xaed6
    assert r.stdout.strip() == ("packet 0: out port 1: "
                                "080000000111" "000000000002" "0800" "45000014" "00010000" "3f11aed6"
                                "c0000201" "0a000101")


def test_run_packet_hex_dropped_and_bad_hex():
    r = run("run-packet", "ipv4_router", "--entries", str(ROUTER_JSON), "--packet", NO_ROUTE)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("packet 0: dropped") and "egress_spec = 511" in r.stdout
    r = run("run-packet", "ipv4_router", "--packet", "0a0b0")
    assert r.returncode == 1
    assert "not an even number of hex digits" in r.stderr and "Traceback" not in r.stderr


def test_run_packet_trace():
    r = run("run-packet", "ipv4_router", "--entries", str(ROUTER_JSON), "--packet", TO_PORT_1, "--trace")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    for step in ("packet in: port 0, 34 bytes", "parser state parse_ipv4", "extracted hdr.ipv4",
                 "table MyIngress.ipv4_lpm: key (0xa000101) hit entry 0 -> ipv4_forward",
                 "action ipv4_forward(0x80000000111, 0x1)", "packet out: port 1, 34 bytes",
                 "ethernet_t(dstAddr=0x2, srcAddr=0x1, etherType=0x800)",    # fields in hex, like the keys
                 "ttl=0x40, protocol=0x11, hdrChecksum=0x0, srcAddr=0xc0000201, dstAddr=0xa000101)"):
        assert step in out, step
    assert out.index("parser state parse_ipv4") < out.index("table MyIngress.ipv4_lpm") < out.index("packet out")
    # Each parser state, table, action and extern call names its P4 file and line, as BMv2's log does.
    lines = (ROUTER_JSON.with_suffix(".p4")).read_text().splitlines()
    at = {key: next(i for i, text in enumerate(lines, 1) if key in text)
          for key in ("state parse_ipv4", "table ipv4_lpm", "action ipv4_forward", "verify_checksum(")}
    for step in (f"parser state parse_ipv4 at ipv4_router.p4:{at['state parse_ipv4']}",
                 f"-> ipv4_forward at ipv4_router.p4:{at['table ipv4_lpm']}",
                 f"action ipv4_forward(0x80000000111, 0x1) at ipv4_router.p4:{at['action ipv4_forward']}",
                 f"extern verify_checksum() at ipv4_router.p4:{at['verify_checksum(']}"):
        assert step in out, step


def test_run_packet_pcap_to_per_port_pcaps(tmp_path):
    pcap_in = tmp_path / "in.pcap"
    sent = [packet("10.0.1.1", b"a"), packet("10.0.2.2", b"bb"), packet("10.0.1.1", b"ccc"),
            packet("11.0.0.1"), packet("10.0.3.9")]
    wrpcap(str(pcap_in), sent)
    out = tmp_path / "out"
    r = run("run-packet", "ipv4_router", "--entries", str(ROUTER_JSON), "--pcap", str(pcap_in), "--out", str(out))
    assert r.returncode == 0, r.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary == {"packets_in": 5, "packets_out": {"1": 2, "2": 1, "3": 1}, "drops": 1}
    assert sorted(p.name for p in out.iterdir()) == ["port1.pcap", "port2.pcap", "port3.pcap", "summary.json"]
    port1 = rdpcap(str(out / "port1.pcap"))
    assert [bytes(p[UDP].payload) for p in port1] == [b"a", b"ccc"]
    assert all(p[Ether].dst == "08:00:00:00:01:11" and p[IP].ttl == 63 for p in port1)
    # the router recomputed the checksum: scapy's own recomputation agrees
    for p in port1:
        ip = p[IP]
        stored = ip.chksum
        del ip.chksum
        assert IP(bytes(ip)).chksum == stored
    assert "5 packet(s) in" in r.stdout and "1 dropped" in r.stdout


def test_run_packet_outputs_keep_their_input_times_and_pcapng_input_works(tmp_path):
    from scapy.utils import RawPcapReader, wrpcapng

    sent = [packet("10.0.1.1", b"a"), packet("11.0.0.1"), packet("10.0.1.1", b"b")]
    for i, p in enumerate(sent):
        p.time = 1_000 + i
    wrpcapng(str(tmp_path / "in.pcapng"), sent)
    out = tmp_path / "out"
    r = run("run-packet", "ipv4_router", "--entries", str(ROUTER_JSON), "--pcap", str(tmp_path / "in.pcapng"),
            "--out", str(out))
    assert r.returncode == 0, r.stderr
    with RawPcapReader(str(out / "port1.pcap")) as reader:        # a nanosecond pcap
        assert [(meta.sec, meta.usec) for _, meta in reader] == [(1000, 0), (1002, 0)]


def test_run_packet_needs_exactly_one_source(tmp_path):
    r = run("run-packet", "ipv4_router")
    assert r.returncode != 0 and "exactly one of --packet HEX or --pcap FILE" in r.stderr
    bad = tmp_path / "bad.pcap"
    bad.write_bytes(b"not a pcap at all")
    r = run("run-packet", "ipv4_router", "--pcap", str(bad))
    assert r.returncode == 1 and "cannot read as a pcap file" in r.stderr and "Traceback" not in r.stderr


def test_run_packet_entries_error_names_file_and_line(tmp_path):
    cmds = tmp_path / "s1-commands.txt"
    cmds.write_text("table_add ipv4_lpm ipv4_forward 10.0.0.0/8 => 08:00:00:00:00:01 1\n"
                    "table_add ipv4_lpm ipv4_forward 10.0.0.0/8 => 08:00:00:00:00:01 999\n")
    r = run("run-packet", "ipv4_router", "--entries", str(cmds), "--packet", TO_PORT_1)
    assert r.returncode == 1
    assert f"{cmds}:2: error [BAD_ACTION_DATA]:" in r.stderr and "999" in r.stderr


# ---- dataplane test -------------------------------------------------------------------------------

def test_stf_pass_exits_0():
    r = run("test", str(STF_DIR / "arch_lpm.p4"), str(STF_DIR / "arch_lpm.stf"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "PASS (11 packet(s) sent" in r.stdout


def test_stf_mismatch_exits_1_with_a_readable_diff(tmp_path):
    stf = tmp_path / "wrong.stf"
    stf.write_text(
        "add routes hdr.obs.a:0x0a000000/8 fwd(port:1, tag:0x0008)\n"
        "packet 0 000000000002 000000000001 88b5 0a010203 00000000 0000 0000 00 00 00 00\n"
        "# the tag is really 0x0008\n"
        "expect 1 000000000002 000000000001 88b5 0a010203 00000000 0009 0000 00 00 00 00 $\n"
        "# and nothing is expected on port 2 (watched: a packet comes in there), where the next one goes\n"
        "add routes hdr.obs.a:0x0b000000/8 fwd(port:2, tag:0x0002)\n"
        "packet 2 000000000002 000000000001 88b5 0b000000 00000000 0000 0000 00 00 00 00\n"
        "expect 3 00\n")
    r = run("test", str(STF_DIR / "arch_lpm.p4"), str(stf))
    assert r.returncode == 1
    out = r.stdout
    assert "FAIL" in out
    assert f"port 1, packet 0 (expect at {stf}:4)" in out
    assert "first difference at byte 23 (nibble 47): expected '9', received '8'" in out
    # the differing 16-byte row, expected over received, with ^^ under the differing byte
    assert "  0010  expected  02 03 00 00 00 00 00 09 00 00 00 00 00 00\n" in out
    assert "        received  02 03 00 00 00 00 00 08 00 00 00 00 00 00\n" in out
    assert "\n                                        ^\n" in out
    assert "port 2: expected 0 packet(s), received 1" in out and "unexpected: 000000000002" in out
    assert "port 3: expected 1 packet(s), received 0" in out and f"missing (expect at {stf}:8)" in out


def test_stf_file_errors_exit_1_naming_the_line(tmp_path):
    stf = tmp_path / "bad.stf"
    stf.write_text("packet 0 00\nadd nosuch_table k:1 a()\n")
    r = run("test", str(STF_DIR / "arch_lpm.p4"), str(stf))
    assert r.returncode == 1
    assert f"{stf}:2: error:" in r.stderr and "nosuch_table" in r.stderr
    stf.write_text("pakcet 0 00\n")
    r = run("test", str(STF_DIR / "arch_lpm.p4"), str(stf))
    assert r.returncode == 1 and f"{stf}:1" in r.stderr and "did you mean 'packet'" in r.stderr


def test_stf_with_a_program_that_does_not_compile(tmp_path):
    p4 = tmp_path / "broken.p4"
    p4.write_text("#include <v1model.p4>\ncontrol C() { apply { x = ; } }\n")
    stf = tmp_path / "t.stf"
    stf.write_text("packet 0 00\n")
    r = run("test", str(p4), str(stf))
    assert r.returncode == 1 and "broken.p4:2" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("name", ["arch_multicast", "arch_clone_i2e"])
def test_stf_runs_the_architecture_tests_from_the_command_line(name):
    r = run("test", str(STF_DIR / f"{name}.p4"), str(STF_DIR / f"{name}.stf"))
    assert r.returncode == 0, r.stdout + r.stderr


# ---- --engine ----------------------------------------------------------------------------------

def test_run_packet_engines_print_the_same_and_verbose_says_which_ran(tmp_path):
    pcap = tmp_path / "in.pcap"
    wrpcap(str(pcap), [packet("10.0.1.1"), packet("11.0.0.1"), packet("10.0.2.2", b"x" * 30)])
    got = {}
    for engine in ("packet", "batch"):
        r = run("run-packet", "ipv4_router", "--pcap", str(pcap), "--engine", engine, "-v")
        assert r.returncode == 0, r.stderr
        first, _, rest = r.stdout.partition("\n")
        assert first.startswith("engine: " + ("per-packet" if engine == "packet" else "batch"))
        got[engine] = rest
    assert got["packet"] == got["batch"] and "dropped" in got["batch"]


def test_run_packet_engine_batch_refuses_with_the_construct_and_auto_falls_back(tmp_path):
    prog = data_dir("programs") / "allreduce.p4"
    r = run("run-packet", str(prog), "--packet", TO_PORT_1, "--engine", "batch")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "batch engine cannot run this program" in r.stderr and "allreduce.p4:" in r.stderr
    r = run("run-packet", str(prog), "--packet", TO_PORT_1, "-v")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("engine: per-packet engine (")


def test_stf_same_verdict_on_both_engines(tmp_path):
    p4 = Path(__file__).resolve().parents[1] / "stf" / "arch_ternary.p4"
    for engine in ("packet", "batch"):
        r = run("test", str(p4), str(p4.with_suffix(".stf")), "--engine", engine)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "PASS" in r.stdout


RANDOM_P4 = """
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> r; }
struct H { h_t h; }
struct M {}
parser P(packet_in pk, out H h, inout M m, inout standard_metadata_t s) {
    state start { pk.extract(h.h); transition accept; }
}
control VC(inout H h, inout M m) { apply {} }
control I(inout H h, inout M m, inout standard_metadata_t s) {
    apply { random(h.h.r, 8w0, 8w255); s.egress_spec = 1; }
}
control E(inout H h, inout M m, inout standard_metadata_t s) { apply {} }
control CC(inout H h, inout M m) { apply {} }
control D(packet_out pk, in H h) { apply { pk.emit(h.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def test_test_command_seeds_the_switch_random_source(tmp_path):
    from click.testing import CliRunner

    from dataplane.cli import main
    from dataplane.control.switch import Switch

    prog = tmp_path / "rand.p4"
    prog.write_text(RANDOM_P4)
    sw = Switch.from_file(prog, seed=5)
    drawn = [sw.process(0, b"\x00").outputs[0].data.hex() for _ in range(8)]
    stf = tmp_path / "rand.stf"
    stf.write_text("".join(f"packet 0 00\nexpect 1 {d}\n" for d in drawn))
    assert CliRunner().invoke(main, ["test", str(prog), str(stf), "--seed", "5"]).exit_code == 0
    assert CliRunner().invoke(main, ["test", str(prog), str(stf), "--seed", "6"]).exit_code == 1


def test_batch_replay_of_a_capture_whose_packets_all_drop(tmp_path):
    from click.testing import CliRunner

    from dataplane.cli import main
    from dataplane.pcap import PcapWriter

    pcap = tmp_path / "in.pcap"
    w = PcapWriter(pcap)
    for i in range(10):
        w.write(bytes(12) + b"\x08\x00" + bytes(50), time_ns=i)     # IPv4 with TTL 0 and no route
    w.close()
    r = CliRunner().invoke(main, ["run-packet", "ipv4_router", "--pcap", str(pcap), "--out", str(tmp_path / "o"),
                                  "--engine", "batch"])
    assert r.exit_code == 0, r.output
    assert json.loads((tmp_path / "o" / "summary.json").read_text()) == {"packets_in": 10, "packets_out": {}, "drops": 10}
