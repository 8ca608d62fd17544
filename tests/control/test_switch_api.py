"""The control-plane API (``dataplane.control.switch.Switch``) against tests/control/api_switch.p4.

Expected outputs are worked out from the program and BMv2's rules, not taken from the engine.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from dataplane.control.switch import ControlPlaneError, Switch
from dataplane.lang.frontend import compile_file

HERE = Path(__file__).parent
STF_DIR = HERE.parent / "stf"

SRC_MAC = "00:00:00:00:00:01"


@pytest.fixture(scope="module")
def program():
    return compile_file(HERE / "api_switch.p4").program


@pytest.fixture
def sw(program) -> Switch:
    return Switch(program)


def ipv4(dst: str = "10.0.0.1", src: str = "192.168.0.1", tos: int = 0, ttl: int = 64, proto: int = 17,
         smac: str = SRC_MAC) -> bytes:
    """An IPv4/UDP frame; ``tos`` (the diffserv byte) picks the table under test."""
    return bytes(Ether(dst="00:00:00:00:00:02", src=smac) / IP(src=src, dst=dst, tos=tos, ttl=ttl, proto=proto)
                 / UDP(sport=1234, dport=80) / b"data")


def ports(sw: Switch, packet, in_port: int = 0) -> list[int]:
    return [o.port for o in sw.send(in_port, packet)]


def error(fn, *args, **kwargs) -> str:
    with pytest.raises(ControlPlaneError) as info:
        fn(*args, **kwargs)
    return str(info.value)


# ---- names ------------------------------------------------------------------------------------

def test_tables_and_actions_by_full_and_short_names(sw):
    sw.table_add("MyIngress.ipv4_lpm", "MyIngress.forward", ["10.1.0.0/16"], ["00:00:00:00:0a:0a", 3])
    sw.table_add("ipv4_lpm", "forward", ["10.2.0.0/16"], ["00:00:00:00:0b:0b", 4])
    assert ports(sw, ipv4("10.1.2.3")) == [3]
    assert ports(sw, ipv4("10.2.2.3")) == [4]
    # the dmac argument was written into the frame
    (port, frame), = sw.send_and_dissect(0, ipv4("10.2.2.3"))
    assert (port, frame[Ether].dst) == (4, "00:00:00:00:0b:0b")


def test_name_annotation_gives_the_control_plane_name(sw):
    # table port_ranges is @name("MyIngress.ranges"): both that name and its last part resolve
    assert sw.table("MyIngress.ranges") is sw.table("port_ranges") is sw.table("ranges")


def test_unknown_and_ambiguous_table_names(sw):
    msg = error(sw.table_add, "ipv4_lpmm", "forward", ["10.0.0.0/8"], [1, 2])
    assert "unknown table 'ipv4_lpmm'" in msg and "MyIngress.ipv4_lpm" in msg
    msg = error(sw.table_set_default, "stats", "NoAction")
    assert "'stats' is ambiguous" in msg and "MyEgress.stats" in msg and "MyIngress.stats" in msg
    sw.table_set_default("MyEgress.stats", "NoAction")  # a full name is never ambiguous


def test_unknown_action_and_parameters(sw):
    msg = error(sw.table_add, "ipv4_lpm", "set_port", ["10.0.0.0/8"], [1])
    assert "MyIngress.ipv4_lpm" in msg and "'set_port'" in msg and "forward" in msg
    msg = error(sw.table_add, "ipv4_lpm", "forward", ["10.0.0.0/8"], {"dmac": 1, "prt": 2})
    assert "'forward'" in msg and "prt" in msg and "dmac, port" in msg
    msg = error(sw.table_add, "ipv4_lpm", "forward", ["10.0.0.0/8"], {"dmac": 1})
    assert "'forward'" in msg and "missing" in msg and "port" in msg
    msg = error(sw.table_add, "ipv4_lpm", "forward", ["10.0.0.0/8"], [1])
    assert "'forward' takes 2 parameter(s), got 1" in msg


def test_values_too_wide_name_the_field_and_value(sw):
    msg = error(sw.table_add, "ipv4_lpm", "forward", ["10.0.0.0/8"], [1, 512])
    assert "'forward'" in msg and "'port'" in msg and "512" in msg and "9 bits" in msg
    msg = error(sw.table_add, "mac_exact", "set_port", [1 << 48, 0x800], [1])
    assert "MyIngress.mac_exact" in msg and "hdr.ethernet.dstAddr" in msg and "0x1000000000000" in msg
    msg = error(sw.table_add, "ipv4_lpm", "forward", ["10.0.0.0/33"], [1, 2])
    assert "hdr.ipv4.dstAddr" in msg and "prefix length 33" in msg
    msg = error(sw.table_add, "ipv4_lpm", "forward", ["10.0.0.x/8"], [1, 2])
    assert "hdr.ipv4.dstAddr" in msg and "'10.0.0.x'" in msg
    msg = error(sw.table_add, "port_ranges", "set_flag", ["1..2", None], {"flag": 2}, priority=1)
    assert "'set_flag'" in msg and "'flag'" in msg and "1 bits" in msg


def test_wrong_key_form_for_the_match_kind(sw):
    msg = error(sw.table_add, "mac_exact", "set_port", ["1/8", 0x800], [3])
    assert "hdr.ethernet.dstAddr" in msg and "is exact" in msg
    msg = error(sw.table_add, "port_ranges", "set_port", ["1 &&& 2", None], [3], priority=1)
    assert "hdr.ipv4.ttl" in msg and "is range" in msg
    msg = error(sw.table_add, "port_ranges", "set_port", ["20..10", None], [3], priority=1)
    assert "hdr.ipv4.ttl" in msg and "20..10 is empty" in msg
    msg = error(sw.table_add, "mac_exact", "set_port", [1], [3])
    assert "MyIngress.mac_exact" in msg and "2 key field(s), got 1" in msg


# ---- key forms ----------------------------------------------------------------------------------

def test_exact_keys_as_ints_strings_and_dicts(sw):
    sw.table_add("mac_exact", "set_port", [0x000000000002, 0x9000], [2])
    sw.table_add("mac_exact", "set_port", ["00:00:00:00:00:03", "0x9000"], [3])
    sw.table_add("mac_exact", "set_port", {"hdr.ethernet.dstAddr": "00:00:00:00:00:04", "etype": 0x9000}, {"port": 4})
    sw.table_add("mac_exact", "set_port", {"dstAddr": 5, "etype": 0x9000}, [5])  # a suffix; the @name
    for mac, port in [("00:00:00:00:00:02", 2), ("00:00:00:00:00:03", 3), ("00:00:00:00:00:04", 4),
                      ("00:00:00:00:00:05", 5)]:
        assert ports(sw, Ether(dst=mac, src=SRC_MAC, type=0x9000) / (b"x" * 20)) == [port]
    # a miss runs the const default action drop()
    assert ports(sw, Ether(dst="00:00:00:00:00:02", src=SRC_MAC, type=0x9001) / (b"x" * 20)) == []
    msg = error(sw.table_add, "mac_exact", "set_port", {"dstAddr": 6, "etype": 1, "vlan": 3}, [1])
    assert "has no key(s) vlan" in msg and "hdr.ethernet.dstAddr" in msg
    msg = error(sw.table_add, "mac_exact", "set_port", {"dstAddr": 6}, [1])
    assert "no value for key 'etype'" in msg
    # the key is @name("etype"): the expression text is not its name
    msg = error(sw.table_add, "mac_exact", "set_port", {"dstAddr": 6, "etherType": 1}, [1])
    assert "has no key(s) etherType" in msg


def test_lpm_key_forms(sw):
    sw.table_add("ipv4_lpm", "forward", ["10.0.0.0/8"], [0, 1])
    sw.table_add("ipv4_lpm", "forward", [(0x0A010000, 16)], [0, 2])
    sw.table_add("ipv4_lpm", "forward", "10.1.1.0/24", [0, 3])  # a single key need not be in a list
    sw.table_add("ipv4_lpm", "forward", ["10.1.1.1"], [0, 4])  # no length: the whole field
    sw.table_add("ipv4_lpm", "forward", {"dstAddr": ("11.0.0.0", 8)}, [0, 5])
    got = {dst: ports(sw, ipv4(dst)) for dst in ("10.9.9.9", "10.1.9.9", "10.1.1.9", "10.1.1.1", "11.1.1.1")}
    assert got == {"10.9.9.9": [1], "10.1.9.9": [2], "10.1.1.9": [3], "10.1.1.1": [4], "11.1.1.1": [5]}
    # bits beyond the prefix are masked off: the same prefix again is a duplicate
    msg = error(sw.table_add, "ipv4_lpm", "forward", ["10.77.0.0/8"], [0, 9])
    assert "MyIngress.ipv4_lpm" in msg and "already exists" in msg


def test_ternary_keys_need_a_priority_and_the_larger_wins(sw):
    msg = error(sw.table_add, "acl", "set_port", ["10.0.0.0 &&& 255.0.0.0", "17 &&& 0xff"], [1])
    assert "MyIngress.acl" in msg and "priority" in msg
    sw.table_add("acl", "set_port", ["10.0.0.0 &&& 255.0.0.0", "0 &&& 0"], [1], priority=10)
    sw.table_add("acl", "set_port", [(0x0A010000, 0xFFFF0000), (17, 0xFF)], [2], priority=20)
    sw.table_add("acl", "set_port", {"srcAddr": "0 &&& 0"}, [3], priority=1)  # protocol omitted: wildcard
    assert ports(sw, ipv4(src="10.1.0.5", tos=1, proto=17)) == [2]
    assert ports(sw, ipv4(src="10.1.0.5", tos=1, proto=6)) == [1]
    assert ports(sw, ipv4(src="12.0.0.1", tos=1)) == [3]
    # same key with another priority is another entry; same key and priority is a duplicate
    sw.table_add("acl", "set_port", [(0x0A010000, 0xFFFF0000), (17, 0xFF)], [4], priority=30)
    assert ports(sw, ipv4(src="10.1.0.5", tos=1, proto=17)) == [4]
    msg = error(sw.table_add, "acl", "set_port", [(0x0A010000, 0xFFFF0000), (17, 0xFF)], [5], priority=30)
    assert "MyIngress.acl" in msg and "priority 30 already exists" in msg


def test_equal_priorities_first_added_wins(sw):
    sw.table_add("acl", "set_port", ["10.0.0.0 &&& 0xff000000", "0 &&& 0"], [1], priority=5)
    sw.table_add("acl", "set_port", ["0.0.0.1 &&& 0x000000ff", "0 &&& 0"], [2], priority=5)
    assert ports(sw, ipv4(src="10.0.0.1", tos=1)) == [1]
    assert ports(sw, ipv4(src="11.0.0.1", tos=1)) == [2]


def test_range_and_optional_keys(sw):
    sw.table_add("ranges", "set_port", ["10..20", 6], [1], priority=1)
    sw.table_add("ranges", "set_port", ["15->30", "*"], [2], priority=2)
    sw.table_add("ranges", "set_port", [(40, 50), None], [3], priority=3)
    sw.table_add("ranges", "set_flag", {"ttl": 60, "protocol": 17}, {"flag": True}, priority=4)
    sw.table_add("ranges", "set_flag", {"ttl": 61}, {"flag": 0}, priority=5)  # optional omitted: wildcard
    # (15, 6) matches priorities 1 and 2; a miss runs NoAction and egress_spec stays 0: port 0
    cases = [(10, 6, 1), (14, 6, 1), (15, 6, 2), (20, 17, 2), (30, 6, 2), (31, 6, 0), (9, 6, 0),
             (40, 1, 3), (50, 1, 3), (60, 17, 8), (60, 6, 0), (61, 6, 7)]
    for ttl, proto, want in cases:
        assert ports(sw, ipv4(tos=2, ttl=ttl, proto=proto)) == [want], (ttl, proto)
    msg = error(sw.table_add, "ranges", "set_port", ["10..20", 6], [1])
    assert "MyIngress.port_ranges" in msg and "priority" in msg


# ---- entries: modify, delete, defaults ------------------------------------------------------------

def test_modify_delete_and_clear(sw):
    h0 = sw.table_add("ipv4_lpm", "forward", ["10.0.0.0/8"], [0, 1])
    h1 = sw.table_add("ipv4_lpm", "forward", ["11.0.0.0/8"], [0, 2])
    assert (h0, h1) == (0, 1)
    sw.table_modify("ipv4_lpm", h0, "forward", [0, 5])
    assert ports(sw, ipv4("10.0.0.1")) == [5]
    sw.table_modify("MyIngress.ipv4_lpm", h0, "drop")
    assert ports(sw, ipv4("10.0.0.1")) == []
    sw.table_delete("ipv4_lpm", h1)
    assert ports(sw, ipv4("11.0.0.1")) == []  # default drop()
    msg = error(sw.table_delete, "ipv4_lpm", h1)
    assert "MyIngress.ipv4_lpm" in msg and "handle 1" in msg
    msg = error(sw.table_modify, "ipv4_lpm", 7, "forward", [0, 1])
    assert "MyIngress.ipv4_lpm" in msg and "handle 7" in msg
    assert sw.table_add("ipv4_lpm", "forward", ["12.0.0.0/8"], [0, 3]) == 2  # handles are not reused here
    sw.table_clear("ipv4_lpm")
    assert sw.table_entries("ipv4_lpm") == []
    assert ports(sw, ipv4("12.0.0.1")) == []


def test_set_default_and_its_restrictions(sw):
    assert ports(sw, ipv4("10.0.0.1")) == []  # default drop()
    sw.table_set_default("ipv4_lpm", "forward", ["00:00:00:00:00:09", 9])
    (port, frame), = sw.send_and_dissect(0, ipv4("10.0.0.1"))
    assert (port, frame.dst) == (9, "00:00:00:00:00:09")
    sw.table_set_default("ipv4_lpm", "NoAction")  # @defaultonly: fine as the default
    assert ports(sw, ipv4("10.0.0.1")) == [0]
    msg = error(sw.table_add, "ipv4_lpm", "NoAction", ["10.0.0.0/8"])
    assert "MyIngress.ipv4_lpm" in msg and "'NoAction' is @defaultonly" in msg
    msg = error(sw.table_set_default, "acl", "set_port", [1])
    assert "MyIngress.acl" in msg and "'set_port' is @tableonly" in msg
    msg = error(sw.table_set_default, "mac_exact", "set_port", [1])
    assert "MyIngress.mac_exact" in msg and "const default_action" in msg


def test_const_entries_are_installed_with_the_first_handles():
    sw = Switch.from_file(STF_DIR / "arch_const_entries.p4")
    entries = sw.table_entries("classify")
    assert [(e.handle, e.name, e.args) for e in entries] == [(0, "set_g", (1,)), (1, "set_g", (2,)),
                                                            (2, "set_g", (3,)), (3, "set_g", (4,))]
    # written first = highest priority; ranges and optional wildcards as the program wrote them
    assert [e.priority for e in entries] == sorted([e.priority for e in entries], reverse=True)
    assert entries[1].key == ((0, 0), (5, 20), None)
    assert [e.args for e in sw.table_entries("lpm_c")] == [(8,), (16,), (24,)]
    assert sw.table_add("prio", "set_d", ["0x42 &&& 0xff"], [1], priority=1) == 3


# ---- externs ----------------------------------------------------------------------------------------

def test_registers(sw):
    sw.register_write("reg32", 1, 0x1234)
    sw.register_write("MyIngress.reg8", 3, "0xff")
    assert sw.register_read("MyIngress.reg32", 1) == 0x1234
    assert sw.register_read("reg8", 3) == 255
    assert sw.register_read("reg32", 0) == 0
    # the program reads reg32[1] into identification and writes reg32[1] + 1 into reg32[2]
    (port, frame), = sw.send_and_dissect(0, ipv4(tos=4))
    assert (port, frame[IP].id) == (1, 0x1234)
    assert sw.register_read("reg32", 2) == 0x1235
    msg = error(sw.register_write, "reg32", 16, 1)
    assert "MyIngress.reg32" in msg and "index 16" in msg and "size 16" in msg
    msg = error(sw.register_write, "reg8", 0, 256)
    assert "MyIngress.reg8" in msg and "256" in msg and "8 bits" in msg
    msg = error(sw.register_read, "nosuch", 0)
    assert "unknown register 'nosuch'" in msg and "MyIngress.reg32" in msg


def test_counters(sw):
    a, b = ipv4("10.0.0.1"), ipv4("10.0.0.1") + b"pad!"
    sw.send(3, a)
    sw.send(3, b)
    sw.send(5, a)
    assert sw.counter_read("port_counter", 3) == (2, len(a) + len(b))
    assert sw.counter_read("MyIngress.port_counter", 5) == (1, len(a))
    assert sw.counter_read("port_counter", 0) == (0, 0)
    sw.counter_reset("port_counter")
    assert sw.counter_read("port_counter", 3) == (0, 0)
    msg = error(sw.counter_read, "port_counter", 8)
    assert "MyIngress.port_counter" in msg and "index 8" in msg


def test_direct_counter_counts_hits_per_entry(sw):
    h10 = sw.table_add("ipv4_lpm", "forward", ["10.0.0.0/8"], [0, 1])
    h11 = sw.table_add("ipv4_lpm", "forward", ["11.0.0.0/8"], [0, 2])
    pkt = ipv4("10.0.0.1")
    for _ in range(3):
        sw.send(0, pkt)
    sw.send(0, ipv4("11.0.0.1"))
    sw.send(0, ipv4("12.0.0.1"))  # a miss counts nowhere
    assert sw.direct_counter_read("ipv4_lpm", h10) == (3, 3 * len(pkt))
    assert sw.direct_counter_read("ipv4_lpm", h11) == (1, len(pkt))
    msg = error(sw.direct_counter_read, "ipv4_lpm", 9)
    assert "MyIngress.ipv4_lpm" in msg and "handle 9" in msg


def test_meters(sw):
    def colour() -> int:
        (port, frame), = sw.send_and_dissect(0, ipv4(tos=5))
        return frame[IP].id

    assert [colour() for _ in range(3)] == [0, 0, 0]  # not configured: GREEN
    # committed burst 1, peak burst 2, rates too small to refill: GREEN, YELLOW, RED, RED
    sw.meter_set_rates("pmeter", 0, [(1e-7, 1), (1e-7, 2)])
    assert [colour() for _ in range(4)] == [0, 1, 2, 2]
    msg = error(sw.meter_set_rates, "pmeter", 0, [(0.5, 1), (0.1, 1)])
    assert "committed rate" in msg
    msg = error(sw.meter_set_rates, "pmeter", 4, [(0.1, 1), (0.5, 1)])
    assert "MyIngress.pmeter" in msg and "index 4" in msg
    msg = error(sw.meter_set_rates, "pmeter", 0, [(0.1, 1)])
    assert "2 rates" in msg


def test_digests(sw):
    sw.send(3, ipv4(smac="00:00:00:00:00:aa"))
    sw.send(4, ipv4(smac="00:00:00:00:00:bb"))
    assert sw.digests(clear=False) == [(1, (0xAA, 3)), (1, (0xBB, 4))]
    assert sw.digests() == [(1, (0xAA, 3)), (1, (0xBB, 4))]
    assert sw.digests() == []
    # once the MAC is learnt, smac hits and sends no digest
    sw.table_add("smac", "NoAction", ["00:00:00:00:00:aa"])
    sw.send(3, ipv4(smac="00:00:00:00:00:aa"))
    assert sw.digests() == []


def _crc16_arc(data: bytes) -> int:
    """CRC-16/ARC (BMv2's crc16): reflected polynomial 0x8005, init 0, no final xor."""
    crc = 0
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
    return crc


def test_crc16_reference_check_value():
    assert _crc16_arc(b"123456789") == 0xBB3D


def test_action_selector_groups(sw):
    sw.table_add_group("ecmp", ["10.0.0.1"], [("set_port", [1]), ("set_port", [2]), ("set_port", {"port": 3})])
    for i in range(1, 30):
        src = f"192.168.{i}.{i * 7 % 256}"
        member = _crc16_arc(bytes(int(x) for x in src.split("."))) % 3
        assert ports(sw, ipv4("10.0.0.1", src=src, tos=3)) == [member + 1], src
    # another destination: no group, NoAction, port 0
    assert ports(sw, ipv4("10.0.0.2", tos=3)) == [0]
    msg = error(sw.table_add_group, "ipv4_lpm", ["10.0.0.0/8"], [("forward", [0, 1])])
    assert "MyIngress.ipv4_lpm" in msg and "no selector key" in msg


# ---- the traffic manager: multicast and clone sessions ---------------------------------------------

def _obs(e: int = 0, c: int = 0) -> bytes:
    """A frame for the tests/stf/arch_*.p4 programs: Ethernet + obs header (c at bytes 22-23, e at 26)."""
    return bytes.fromhex("000000000002000000000001 88b5".replace(" ", "")) + bytes(8) + c.to_bytes(2, "big") \
        + bytes(2) + bytes([e, 0, 0, 0])


def test_multicast_groups_from_the_api():
    sw = Switch.from_file(STF_DIR / "arch_multicast.p4")
    sw.mc_group_create(1, [(3, 10), (1, 10), (2, 20)])  # (port, rid) replicas
    outs = sw.send(6, _obs(c=1))
    # rid is written into obs.a, instance_type (5) into obs.g
    assert [(o.port, int.from_bytes(o.data[14:18], "big"), o.data[28]) for o in outs] == [
        (1, 10, 5), (3, 10, 5), (2, 20, 5)]
    msg = error(sw.mc_group_create, 1)
    assert "multicast group 1 already exists" in msg
    assert "out of range" in error(sw.mc_group_create, 0)
    sw.mc_group_destroy(1)
    assert sw.send(6, _obs(c=1)) == []
    assert "does not exist" in error(sw.mc_group_destroy, 1)


def test_multicast_nodes_in_association_order():
    sw = Switch.from_file(STF_DIR / "arch_multicast.p4")
    sw.mc_group_create(2)
    n0 = sw.mc_node_create(30, [5, 4])
    n1 = sw.mc_node_create(40, [4, 4])  # a port twice is one copy
    assert (n0, n1) == (0, 1)
    sw.mc_node_associate(2, n1)
    sw.mc_node_associate(2, n0)
    assert [(o.port, o.data[17]) for o in sw.send(6, _obs(c=2))] == [(4, 40), (4, 30), (5, 30)]
    assert "already associated with group 2" in error(sw.mc_node_associate, 2, n0)
    assert "does not exist" in error(sw.mc_node_associate, 9, sw.mc_node_create(1, [1]))
    assert "handle 7 does not exist" in error(sw.mc_node_associate, 2, 7)
    sw.mc_node_update(n0, [6])
    assert [(o.port, o.data[17]) for o in sw.send(6, _obs(c=2))] == [(4, 40), (6, 30)]
    sw.mc_node_dissociate(2, n1)
    assert [o.port for o in sw.send(6, _obs(c=2))] == [6]
    sw.mc_node_destroy(n0)
    assert sw.send(6, _obs(c=2)) == []
    assert sw.mc_node_create(50, [1]) == 0  # the lowest free handle again
    assert "port 600 is out of range" in error(sw.mc_node_create, 1, [600])


def test_clone_sessions():
    sw = Switch.from_file(STF_DIR / "arch_clone_i2e.p4")
    # e=1 clones to session 5; unconfigured: only the original (port 1)
    assert ports(sw, _obs(e=1), 6) == [1]
    sw.clone_session_add(5, 4)
    outs = sw.send(6, _obs(e=1))
    assert sorted((o.port, o.instance_type) for o in outs) == [(1, 0), (4, 1)]
    # a session may truncate its clones (packet_length_bytes of the runtime JSON)
    sw.clone_session_add(5, 4, packet_length=20)
    clone = next(o for o in sw.send(6, _obs(e=1)) if o.port == 4)
    assert len(clone.data) == 20
    # e=3 clones to session 7, replicated to a multicast group
    sw.mc_group_create(1, [(2, 9), (3, 9)])
    sw.clone_session_add_mc(7, 1)
    assert sorted((o.port, o.instance_type) for o in sw.send(6, _obs(e=3))) == [(1, 0), (2, 1), (3, 1)]
    sw.clone_session_delete(5)
    assert ports(sw, _obs(e=1), 6) == [1]
    assert "does not exist" in error(sw.clone_session_delete, 5)
    assert "port 512 is out of range" in error(sw.clone_session_add, 5, 512)
    assert "session 40000 is out of range" in error(sw.clone_session_add, 40000, 1)


# ---- packets in and out --------------------------------------------------------------------------------

def test_send_takes_scapy_packets_or_bytes(sw):
    sw.table_add("ipv4_lpm", "forward", ["10.0.0.0/8"], ["00:00:00:00:00:99", 2])
    pkt = Ether(dst="00:00:00:00:00:02", src=SRC_MAC) / IP(src="1.2.3.4", dst="10.0.0.1") / UDP() / b"hi"
    via_scapy = sw.send(0, pkt)
    via_bytes = sw.send(0, bytes(pkt))
    assert [(o.port, o.data) for o in via_scapy] == [(o.port, o.data) for o in via_bytes]
    (port, frame), = sw.send_and_dissect(0, pkt)
    assert port == 2
    assert frame[Ether].dst == "00:00:00:00:00:99"
    assert frame[IP].dst == "10.0.0.1" and frame[UDP].load == b"hi"
    assert "port 512 is out of range" in error(sw.send, 512, pkt)


def test_process_reports_why_a_packet_was_dropped(sw):
    result = sw.process(0, ipv4("10.0.0.1"))  # default action drop()
    assert result.outputs == [] and result.drops == ["dropped in ingress (egress_spec = 511)"]


def test_from_file_takes_a_built_in_program_name(tmp_path, monkeypatch):
    """Like the CLI: ``Switch.from_file("ipv4_router")`` works from any folder; a path still wins."""
    from dataplane.control.switch import Switch
    from dataplane.errors import DataplaneError

    monkeypatch.chdir(tmp_path)
    sw = Switch.from_file("ipv4_router")
    assert sw.table("ipv4_lpm") is not None
    with pytest.raises(DataplaneError):
        Switch.from_file("no_such_program")
