"""The eBPF family: EbpfFilter, XdpSwitch, UbpfSwitch and their helpers (packet paths are in
tests/stf/ebpf_*, xdp_*, ubpf_*)."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from dataplane.arch.xdp import XDP_PASS, XDP_REDIRECT, XDP_TX
from dataplane.control.config_errors import ControlPlaneError
from dataplane.control.switch import Switch
from dataplane.engine import ebpf_externs as EX

STF = Path(__file__).resolve().parents[1] / "stf"
IP = "0800 45000014 00010000 40110000 0a000001 0a000009"


def _checksum(data: bytes) -> int:
    s = sum(int.from_bytes(data[i:i + 2], "big") for i in range(0, len(data), 2))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def test_lookup3_matches_jenkins_vectors():
    """uBPF's lookup3 is Bob Jenkins' hashlittle (the vectors published with lookup3.c)."""
    assert EX.lookup3(b"") == 0xDEADBEEF
    assert EX.lookup3(b"Four score and seven years ago") == 0x17770551
    assert EX.lookup3(b"Four score and seven years ago", 1) == 0xCD628161


def test_incremental_checksums_equal_a_full_recompute():
    """csum_replace2/4 (RFC 1624) give the checksum a full RFC 1071 sum gives after the change."""
    rng = random.Random(7)
    for _ in range(200):
        words = [rng.randrange(1 << 16) for _ in range(10)]
        before = _checksum(b"".join(w.to_bytes(2, "big") for w in words))
        i = rng.randrange(9)
        old32 = (words[i] << 16) | words[i + 1]
        new32 = rng.randrange(1 << 32)
        after = list(words)
        after[i], after[i + 1] = new32 >> 16, new32 & 0xFFFF
        assert EX.csum_replace4(before, old32, new32) == _checksum(b"".join(w.to_bytes(2, "big") for w in after))
        after2 = list(words)
        after2[i] = new32 & 0xFFFF
        assert EX.csum_replace2(before, words[i], after2[i]) == \
            _checksum(b"".join(w.to_bytes(2, "big") for w in after2))


def test_ipv4_checksum_of_a_header():
    header = bytes.fromhex("45000014000100004011 0000 0a0000010a000009".replace(" ", ""))
    assert EX.ipv4_checksum(None, 4, 5, 0, 20, 1, 0, 0, 0x40, 0x11, 0x0A000001, 0x0A000009) == _checksum(header)


def test_counter_array_counts_accepted_packets_per_index():
    """ebpf_filter.p4 counts accepted packets per IP protocol in a dense CounterArray; the control
    plane reads a cell as its packet count."""
    sw = Switch.from_file(STF / "ebpf_filter.p4")
    for proto in ("11", "11", "06"):
        frame = bytes.fromhex(f"000000000002 000000000001 0800 45000014 00010000 40{proto}0000 0a000001 0a000009"
                              .replace(" ", ""))
        assert [o.port for o in sw.send(3, frame)] == [3]
    assert sw.counter_read("by_proto", 0x11) == (2, 0)
    assert sw.counter_read("pipe.by_proto", 6) == (1, 0)
    assert sw.counter_read("by_proto", 1) == (0, 0)
    with pytest.raises(ControlPlaneError):
        sw.counter_read("by_proto", 256)   # a dense array of 256


def test_sparse_counter_array_holds_at_most_max_index_cells():
    c = EX.CounterArray("c", 2, True)
    for index in (7, 1 << 31, 9, 7):
        c.increment(None, index)
    assert c.values == {7: 2, 1 << 31: 1}
    c.add(None, 7, 0xFFFF_FFFF)
    assert c.values[7] == 1    # 32-bit wrap


def test_hash_table_size_is_the_table_capacity():
    """implementation = hash_table(8): the ninth entry fails as a full eBPF map's update does."""
    sw = Switch.from_file(STF / "ebpf_filter.p4")
    for i in range(8):
        sw.table_add("blocked", "Reject", [i])
    with pytest.raises(ControlPlaneError, match="full|size|capacity"):
        sw.table_add("blocked", "Reject", [99])


def test_xdp_outputs_say_what_the_program_decided():
    """XDP_PASS and XDP_TX leave on the input port, XDP_REDIRECT on output_port; each Output's
    instance_type is the action, which a host running the program uses."""
    sw = Switch.from_file(STF / "xdp_actions.p4")
    for mac, action, args in (("a1", "pass", []), ("a2", "tx", []), ("a3", "redirect", [5])):
        sw.table_add("by_dst", action, [int("0000000000" + mac, 16)], args)
    got = []
    for mac in ("a1", "a2", "a3", "a4"):
        frame = bytes.fromhex(f"0000000000{mac}000000000001" + IP.replace(" ", ""))
        got += [(o.port, o.instance_type) for o in sw.send(1, frame)]
    assert got == [(1, XDP_PASS), (1, XDP_TX), (5, XDP_REDIRECT)]


def test_ebpf_family_devices_take_no_net_ports():
    from dataplane.lang.frontend import compile_file

    program = compile_file(STF / "ebpf_lpm.p4").program
    assert program.architecture == "ebpf"
    with pytest.raises(ControlPlaneError, match="net_ports"):
        Switch(program, net_ports=[0])
