"""Control-plane files applied to a switch: the tutorials' runtime JSON and simple_switch_CLI commands."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from dataplane.control.config_errors import ConfigError
from dataplane.control.loader import load_entries
from dataplane.control.switch import Switch
from dataplane.lang.frontend import compile_file
from dataplane.resources import data_dir

HERE = Path(__file__).parent
STF_DIR = HERE.parent / "stf"
PROGRAMS = data_dir("programs")


@pytest.fixture(scope="module")
def router_program():
    return compile_file(PROGRAMS / "ipv4_router.p4").program


@pytest.fixture(scope="module")
def api_program():
    return compile_file(HERE / "api_switch.p4").program


@pytest.fixture
def api(api_program) -> Switch:
    return Switch(api_program)


def ipv4(dst: str, src: str = "192.168.0.1", tos: int = 0, ttl: int = 64, proto: int = 17) -> bytes:
    return bytes(Ether(dst="00:00:00:00:00:02", src="00:00:00:00:00:01")
                 / IP(src=src, dst=dst, tos=tos, ttl=ttl, proto=proto) / UDP(sport=1, dport=2) / b"payload")


def ports(sw: Switch, packet: bytes, in_port: int = 0) -> list[int]:
    return [o.port for o in sw.send(in_port, packet)]


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def runtime_json(tmp_path: Path, **sections) -> Path:
    doc = {"target": "bmv2", "p4info": "build/x.p4info.txt", "bmv2_json": "build/x.json", **sections}
    return write(tmp_path, "s1-runtime.json", json.dumps(doc, indent=2))


def load_error(sw: Switch, path: Path) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        load_entries(sw, path)
    return info.value


def line_of(path: Path, text: str) -> int:
    """The 1-based line of the first line of ``path`` containing ``text``."""
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


# ---- runtime JSON -------------------------------------------------------------------------------

def test_ipv4_router_runtime_json(router_program):
    sw = Switch(router_program)
    assert load_entries(sw, PROGRAMS / "ipv4_router.json") == []
    # /32 entries for 10.0.1.1 and 10.0.2.2, /24 for 10.0.3.0, /8 for 10.0.0.0, default drop
    expected = {"10.0.1.1": (1, "08:00:00:00:01:11"), "10.0.2.2": (2, "08:00:00:00:02:22"),
                "10.0.3.7": (3, "08:00:00:00:03:00"), "10.0.1.2": (4, "08:00:00:00:04:00"),
                "10.200.0.1": (4, "08:00:00:00:04:00")}
    for dst, (port, mac) in expected.items():
        (out_port, frame), = sw.send_and_dissect(0, ipv4(dst))
        assert (out_port, frame[Ether].dst) == (port, mac), dst
        # the router moves the old destination MAC to the source and decrements the TTL
        assert frame[Ether].src == "00:00:00:00:00:02"
        assert frame[IP].ttl == 63
        # ... and recomputes the header checksum: the IPv4 checksum of a correct header is 0
        header = bytes(frame[IP])[:20]
        total = sum(int.from_bytes(header[i:i + 2], "big") for i in range(0, 20, 2))
        while total >> 16:
            total = (total & 0xFFFF) + (total >> 16)
        assert total == 0xFFFF, dst
    assert ports(sw, ipv4("11.0.0.1")) == []
    assert ports(sw, ipv4("192.168.1.1")) == []


def test_runtime_json_key_kinds_and_priorities(tmp_path, api):
    path = runtime_json(tmp_path, table_entries=[
        {"table": "MyIngress.acl", "match": {"hdr.ipv4.srcAddr": ["10.0.0.0", "255.0.0.0"]},
         "action_name": "MyIngress.set_port", "action_params": {"port": 1}, "priority": 10},
        {"table": "MyIngress.acl", "match": {"hdr.ipv4.srcAddr": ["10.1.0.0", "255.255.0.0"],
                                             "hdr.ipv4.protocol": [17, 255]},
         "action_name": "MyIngress.set_port", "action_params": {"port": 2}, "priority": 20},
        {"table": "MyIngress.ranges", "match": {"hdr.ipv4.ttl": [10, 20], "hdr.ipv4.protocol": 6},
         "action_name": "MyIngress.set_port", "action_params": {"port": 3}, "priority": 1},
        {"table": "MyIngress.mac_exact", "match": {"hdr.ethernet.dstAddr": "00:00:00:00:00:02", "etype": [0x9000]},
         "action_name": "MyIngress.set_port", "action_params": {"port": 4}},
        {"table": "MyIngress.ipv4_lpm", "default_action": True, "action_name": "MyIngress.forward",
         "action_params": {"dmac": "00:00:00:00:00:05", "port": 5}},
    ])
    load_entries(api, path)
    # P4Runtime priorities: the larger wins; an omitted ternary field matches anything
    assert ports(api, ipv4("1.1.1.1", src="10.1.0.1", tos=1, proto=17)) == [2]
    assert ports(api, ipv4("1.1.1.1", src="10.1.0.1", tos=1, proto=6)) == [1]
    assert ports(api, ipv4("1.1.1.1", tos=2, ttl=15, proto=6)) == [3]
    assert ports(api, ipv4("1.1.1.1", tos=2, ttl=15, proto=17)) == [0]
    assert ports(api, bytes(Ether(dst="00:00:00:00:00:02", type=0x9000) / (b"x" * 20))) == [4]
    assert ports(api, ipv4("1.1.1.1")) == [5]  # the new default action of ipv4_lpm


def test_runtime_json_multicast_groups_and_clone_sessions(tmp_path):
    mc = Switch.from_file(STF_DIR / "arch_multicast.p4")
    load_entries(mc, runtime_json(tmp_path, multicast_group_entries=[
        {"multicast_group_id": 1, "replicas": [{"egress_port": 3, "instance": 1}, {"egress_port": 1, "instance": 1},
                                               {"egress_port": 2, "instance": 2}]}]))
    frame = bytes.fromhex("000000000002000000000001" "88b5") + bytes(8) + (1).to_bytes(2, "big") + bytes(6)
    # obs.a (bytes 14-17) gets egress_rid: replicas grouped by instance, ports ascending
    assert [(o.port, o.data[17]) for o in mc.send(0, frame)] == [(1, 1), (3, 1), (2, 2)]

    clone = Switch.from_file(STF_DIR / "arch_clone_i2e.p4")
    load_entries(clone, runtime_json(tmp_path, clone_session_entries=[
        {"clone_session_id": 5, "replicas": [{"egress_port": 4, "instance": 1}], "packet_length_bytes": 24}]))
    frame = bytes.fromhex("000000000002000000000001" "88b5") + bytes(12) + bytes([1, 0, 0, 0]) + b"tail"
    outs = {o.port: o.data for o in clone.send(6, frame)}
    assert sorted(outs) == [1, 4] and len(outs[1]) == len(frame) and len(outs[4]) == 24


@pytest.mark.parametrize("entry, marker, words", [
    ({"table": "MyIngress.nosuch", "match": {"hdr.ipv4.dstAddr": ["10.0.0.0", 8]},
      "action_name": "MyIngress.forward", "action_params": {"dmac": 1, "port": 1}},
     "MyIngress.nosuch", ["unknown table 'MyIngress.nosuch'"]),
    ({"table": "MyIngress.ipv4_lpm", "match": {"hdr.ipv4.dstAddr": ["10.0.0.0", 8]},
      "action_name": "MyIngress.fwd", "action_params": {"port": 1}},
     "MyIngress.fwd", ["MyIngress.ipv4_lpm", "'MyIngress.fwd'"]),
    ({"table": "MyIngress.ipv4_lpm", "match": {"hdr.ipv4.srcAddr": ["10.0.0.0", 8]},
      "action_name": "MyIngress.forward", "action_params": {"dmac": 1, "port": 1}},
     "hdr.ipv4.srcAddr", ["MyIngress.ipv4_lpm", "no key 'hdr.ipv4.srcAddr'"]),
    ({"table": "MyIngress.ipv4_lpm", "match": {"hdr.ipv4.dstAddr": ["10.0.0.0", 8]},
      "action_name": "MyIngress.forward", "action_params": {"dmac": 1, "port": 600}},
     "600", ["MyIngress.ipv4_lpm", "'forward'", "'port'", "600"]),
    ({"table": "MyIngress.ipv4_lpm", "match": {"hdr.ipv4.dstAddr": ["10.0.0.0", 40]},
      "action_name": "MyIngress.forward", "action_params": {"dmac": 1, "port": 1}},
     "40", ["hdr.ipv4.dstAddr", "prefix length 40"]),
    ({"table": "MyIngress.acl", "match": {"hdr.ipv4.srcAddr": ["10.0.0.0", "255.0.0.0"]},
      "action_name": "MyIngress.set_port", "action_params": {"port": 1}},
     "255.0.0.0", ["MyIngress.acl", "priority"]),
    ({"table": "MyIngress.mac_exact", "default_action": True, "action_name": "MyIngress.set_port",
      "action_params": {"port": 1}},
     "mac_exact", ["MyIngress.mac_exact", "const default_action"]),
])
def test_runtime_json_errors_name_the_file_and_line(tmp_path, api, entry, marker, words):
    good = {"table": "MyIngress.ipv4_lpm", "match": {"hdr.ipv4.dstAddr": ["10.0.0.0", 8]},
            "action_name": "MyIngress.forward", "action_params": {"dmac": 1, "port": 1}}
    # one entry per line: the good one on line 3, the failing one on line 4
    path = write(tmp_path, "s1-runtime.json",
                 '{"target": "bmv2", "p4info": "x.p4info.txt", "bmv2_json": "x.json",\n'
                 ' "table_entries": [\n'
                 f'  {json.dumps(good)},\n'
                 f'  {json.dumps(entry)}\n'
                 ']}\n')
    assert line_of(path, marker) == 4
    err = load_error(api, path)
    assert (err.file, err.line) == (str(path), 4)
    assert re.match(rf"{re.escape(str(path))}:4: error( \[[A-Z_]+\])?: ", str(err))
    for w in words:
        assert w in str(err)


def test_runtime_json_syntax_errors(tmp_path, api):
    path = write(tmp_path, "broken.json", '{\n  "target": "bmv2",\n  "table_entries": [\n    {"table": }\n  ]\n}\n')
    err = load_error(api, path)
    assert err.file == str(path) and err.line == 4


# ---- simple_switch_CLI command files -------------------------------------------------------------

CLI_FILE = """\
# entries for api_switch.p4
table_set_default ipv4_lpm forward 00:00:00:00:00:09 9
table_add ipv4_lpm forward 10.0.0.0/8 => 00:00:00:00:00:05 5
table_add MyIngress.ipv4_lpm MyIngress.forward 10.1.0.0/16 => 00:00:00:00:00:06 6
table_modify ipv4_lpm forward 1 => 00:00:00:00:00:07 7
table_add acl set_port 10.0.0.0&&&255.0.0.0 0&&&0 => 1 20
table_add acl set_port 10.1.0.0&&&255.255.0.0 0&&&0 => 2 10
table_add port_ranges set_port 10->20 6 => 3 1
table_add mac_exact set_port 00:00:00:00:00:02 0x9000 => 4
register_write reg32 1 0x55
mc_mgrp_create 1
mc_node_create 0 1 2
mc_node_associate 1 0
mirroring_add 5 3
meter_set_rates pmeter 0 0.0000001:1 0.0000001:2
"""


def test_cli_commands(tmp_path, api):
    assert load_entries(api, write(tmp_path, "s1-commands.txt", CLI_FILE)) == []
    assert ports(api, ipv4("10.9.0.1")) == [5]
    assert ports(api, ipv4("10.1.0.1")) == [7]  # handle 1, modified
    assert ports(api, ipv4("11.0.0.1")) == [9]  # the new default
    # BMv2 priorities: the SMALLER number wins (10 beats 20)
    assert ports(api, ipv4("1.1.1.1", src="10.1.0.1", tos=1)) == [2]
    assert ports(api, ipv4("1.1.1.1", src="10.2.0.1", tos=1)) == [1]
    assert ports(api, ipv4("1.1.1.1", tos=2, ttl=20, proto=6)) == [3]
    assert ports(api, bytes(Ether(dst="00:00:00:00:00:02", type=0x9000) / (b"x" * 20))) == [4]
    assert api.register_read("reg32", 1) == 0x55
    assert api.dp.multicast_groups[1] == [(0, [1, 2])]
    assert api.dp.clone_sessions[5]["port"] == 3


def test_cli_delete_reset_default_and_counters(tmp_path, api):
    load_entries(api, write(tmp_path, "a.txt", CLI_FILE))
    api.send(3, ipv4("10.9.0.1"))
    api.send(3, ipv4("10.9.0.1"))
    load_entries(api, write(tmp_path, "b.txt", """\
table_delete ipv4_lpm 0
table_reset_default ipv4_lpm
counter_write port_counter 4 7 700
counter_write MyIngress.lpm_counter 1 2 200
"""))
    assert ports(api, ipv4("10.9.0.1")) == []  # entry 0 gone, default back to drop()
    assert api.counter_read("port_counter", 4) == (7, 700)
    assert api.counter_read("lpm_counter", 1) == (2, 200)
    assert api.counter_read("port_counter", 3)[0] == 2
    load_entries(api, write(tmp_path, "c.txt", "counter_reset port_counter\ntable_clear acl\n"))
    assert api.counter_read("port_counter", 3) == (0, 0)
    assert ports(api, ipv4("1.1.1.1", src="10.1.0.1", tos=1)) == [0]  # acl is empty: NoAction


def test_cli_read_only_commands_are_warnings(tmp_path, api):
    warnings = load_entries(api, write(tmp_path, "r.txt", "table_dump acl\nregister_read reg32 1\n"))
    assert [(w.line, "table_dump" in w.message) for w in warnings] == [(1, True)]


@pytest.mark.parametrize("text, line, words", [
    ("table_add nosuch forward 10.0.0.0/8 => 1 2\n", 1, ["unknown table 'nosuch'"]),
    ("# ok\ntable_add ipv4_lpm frwd 10.0.0.0/8 => 1 2\n", 2, ["MyIngress.ipv4_lpm", "'frwd'"]),
    ("\n\ntable_add ipv4_lpm forward 10.0.0.0/8 => 1 600\n", 3, ["'port'", "600", "9 bits"]),
    ("table_add ipv4_lpm forward 10.0.0.0/8 => 1 2\ntable_add ipv4_lpm forward 10.0.0.0/8 => 1 2\n", 2,
     ["MyIngress.ipv4_lpm", "already exists"]),
    ("table_add acl set_port 10.0.0.0&&&255.0.0.0 0&&&0 =>\n", 1, ["'acl'", "priority"]),
    # the last token after => is the priority of a range table, so the port is missing
    ("table_add port_ranges set_port 1->2 3 => 4\n", 1, ["port_ranges", "'set_port' takes 1 parameter(s), got 0"]),
    ("table_add mac_exact set_port 00:00:00:00:00:02 => 4\n", 1, ["MyIngress.mac_exact", "2 key field(s), got 1"]),
    ("table_set_default mac_exact set_port 1\n", 1, ["MyIngress.mac_exact", "const default_action"]),
    ("table_delete ipv4_lpm 3\n", 1, ["MyIngress.ipv4_lpm", "handle 3"]),
    ("register_write reg8 0 256\n", 1, ["MyIngress.reg8", "256"]),
    ("mc_node_associate 4 0\n", 1, ["node handle 0 does not exist"]),
    ("table_add ipv4_lpm forward 10.0.0.0/8 => 1\n", 1, ["'forward' takes 2 parameter(s), got 1"]),
    ("bogus_command 1 2\n", 1, ["bogus_command"]),
])
def test_cli_errors_name_the_file_and_line(tmp_path, api, text, line, words):
    path = write(tmp_path, "s1-commands.txt", text)
    err = load_error(api, path)
    assert (err.file, err.line) == (str(path), line)
    assert re.match(rf"{re.escape(str(path))}:{line}: error( \[[A-Z_]+\])?: ", str(err))
    for w in words:
        assert w in str(err)


def test_entries_already_applied_stay_when_a_later_line_fails(tmp_path, api):
    path = write(tmp_path, "s1-commands.txt",
                 "table_add ipv4_lpm forward 10.0.0.0/8 => 1 5\ntable_add nosuch x 1 =>\n")
    load_error(api, path)
    assert ports(api, ipv4("10.0.0.1")) == [5]


def test_unreadable_file(tmp_path, api):
    err = load_error(api, tmp_path / "missing.txt")
    assert "missing.txt" in str(err) and "cannot read" in str(err)
