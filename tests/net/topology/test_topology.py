"""Topology files: containerlab-style YAML and the P4 tutorials' topology.json, and every validation error."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from dataplane.control.config_errors import ConfigError
from dataplane.net.topology.load import format_mac, load_topology, parse_ipv4, parse_mac
from dataplane.net.topology.spec import DEFAULT_BANDWIDTH_BPS, DEFAULT_LATENCY_NS, DEFAULT_QUEUE
from dataplane.resources import builtin_program, data_dir

GOOD = """\
name: small
defaults:
  bandwidth: 1Gbps
  latency: 2us
  queue: 100p
topology:
  nodes:
    s1:
      kind: switch
      program: prog.p4
      entries: s1.json
    s2: {kind: switch, program: prog.p4}
    h1:
      kind: host
      ip: 10.0.1.1/24
      mac: "08:00:00:00:01:11"
      gateway: 10.0.1.10
      arp: {10.0.1.10: "08:00:00:00:01:00"}
    h2: {kind: host, ip: 10.0.2.2/24, mac: "08:00:00:00:02:22"}
  links:
    - endpoints: ["s1:p1", "h1:eth0"]
    - endpoints: ["s2:p1", "h2:eth0"]
    - endpoints: ["s1:p2", "s2:p2"]
      bandwidth: 100Gbps
      latency: 500ns
      queue: 64KB
      mtu: 9000
      loss: 1%
      corruption: 0.001
"""


def make(tmp_path: Path, text: str, name: str = "topo.yaml") -> Path:
    (tmp_path / "prog.p4").write_text("// a program\n")
    (tmp_path / "s1.json").write_text('{"target": "bmv2", "table_entries": []}\n')
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def line_of(text: str, needle: str, nth: int = 1) -> int:
    """1-based line of the nth line containing ``needle``."""
    hits = [i + 1 for i, line in enumerate(textwrap.dedent(text).splitlines()) if needle in line]
    assert len(hits) >= nth, f"{needle!r} not in the text"
    return hits[nth - 1]


def error(tmp_path: Path, text: str, **kwargs) -> ConfigError:
    path = make(tmp_path, text, kwargs.pop("name", "topo.yaml"))
    with pytest.raises(ConfigError) as info:
        load_topology(path, **kwargs)
    err = info.value
    assert err.file == str(path)
    where = f"{path}:{err.line}:{err.column}" if err.column else f"{path}:{err.line}" if err.line else str(path)
    assert str(err).startswith(f"{where}: error: ")
    return err


# -- valid YAML -----------------------------------------------------------------------------------------

def test_good_yaml(tmp_path):
    spec = load_topology(make(tmp_path, GOOD))
    assert spec.name == "small"
    assert list(spec.switches) == ["s1", "s2"] and list(spec.hosts) == ["h1", "h2"]
    s1 = spec.switches["s1"]
    assert s1.program == (tmp_path / "prog.p4").resolve()
    assert s1.entries == (tmp_path / "s1.json").resolve()
    assert spec.switches["s2"].entries is None
    assert s1.line == line_of(GOOD, "s1:")
    h1 = spec.hosts["h1"]
    assert (h1.ip, h1.prefix_len, h1.mac) == (parse_ipv4("10.0.1.1"), 24, 0x080000000111)
    assert h1.gateway == parse_ipv4("10.0.1.10")
    assert h1.static_arp == {parse_ipv4("10.0.1.10"): 0x080000000100}
    assert spec.hosts["h2"].gateway is None
    l1, l2, l3 = spec.links
    assert (l1.a, l1.b) == (("s1", 1), ("h1", 0))
    assert (l1.bandwidth_bps, l1.latency_ns, l1.queue) == (10**9, 2000, (100, "packets"))
    assert l1.line == line_of(GOOD, '"s1:p1"')
    assert (l3.a, l3.b) == (("s1", 2), ("s2", 2))
    assert (l3.bandwidth_bps, l3.latency_ns, l3.queue, l3.mtu) == (100 * 10**9, 500, (64000, "bytes"), 9000)
    assert l3.loss == pytest.approx(0.01) and l3.corruption == pytest.approx(0.001)


def test_builtin_defaults_and_port_spellings(tmp_path):
    text = """\
    name: spellings
    topology:
      nodes:
        s1: {kind: switch, program: ipv4_router, processing_latency: 2us, detection_delay: 5ms,
             write_latency: 100us, cpu_port: 255, params: {device_id: 3}}
        h1: {kind: host}
        h2: {kind: host, ip: 10.0.0.1/16}
        h3: {kind: host, mac: 10:00:00:00:01:11}
        h4: {kind: host}
      links:
        - endpoints: ["s1:p1", "h1:eth0"]
        - endpoints: ["s1:2", "h2"]
        - endpoints: ["s1:eth3", "h3:0"]
        - endpoints: ["h4", "s1:port4"]
    """
    spec = load_topology(make(tmp_path, text))
    s1 = spec.switches["s1"]
    assert s1.program == builtin_program("ipv4_router").resolve()
    assert s1.entries is None
    assert (s1.processing_ns, s1.detection_ns, s1.write_latency_ns) == (2000, 5_000_000, 100_000)
    assert s1.params == {"device_id": 3, "cpu_port": 255}
    assert [(lk.a, lk.b) for lk in spec.links] == [
        (("s1", 1), ("h1", 0)), (("s1", 2), ("h2", 0)), (("s1", 3), ("h3", 0)), (("h4", 0), ("s1", 4))]
    lk = spec.links[0]
    assert (lk.bandwidth_bps, lk.latency_ns, lk.queue) == (DEFAULT_BANDWIDTH_BPS, DEFAULT_LATENCY_NS, DEFAULT_QUEUE)
    # Defaults: lowest free 10.0.0.N/24 in file order (h2 took .1), MAC 02:00 + the IPv4 bytes.
    assert spec.hosts["h1"].ip == parse_ipv4("10.0.0.2")
    assert spec.hosts["h1"].mac == 0x02000A000002
    assert spec.hosts["h2"].prefix_len == 16
    assert spec.hosts["h3"].ip == parse_ipv4("10.0.0.3")
    assert format_mac(spec.hosts["h3"].mac) == "10:00:00:00:01:11"   # not a YAML base-60 integer
    assert spec.hosts["h4"].ip == parse_ipv4("10.0.0.4")
    again = load_topology(tmp_path / "topo.yaml")
    assert again.hosts == spec.hosts


def test_topology_defaults_and_program_default(tmp_path):
    text = """\
    name: d
    topology:
      defaults: {kind: switch, program: prog.p4, processing: 1us, detection: 2ms, mtu: 9000}
      nodes:
        s1: {}
        s2: {entries: s1.json}
        h1: {kind: host}
      links:
        - endpoints: ["s1:p1", "s2:p1"]
    """
    spec = load_topology(make(tmp_path, text))
    assert set(spec.switches) == {"s1", "s2"}
    assert all(s.program == (tmp_path / "prog.p4").resolve() for s in spec.switches.values())
    assert spec.switches["s1"].processing_ns == 1000 and spec.switches["s1"].detection_ns == 2_000_000
    assert spec.links[0].mtu == 9000


def test_program_argument_is_the_default(tmp_path):
    text = """\
    name: p
    topology:
      nodes:
        s1: {kind: switch}
    """
    spec = load_topology(make(tmp_path, text), program="ecmp_router")
    assert spec.switches["s1"].program == builtin_program("ecmp_router").resolve()


def test_program_argument_fills_in_only_switches_without_one(tmp_path):
    text = """\
    name: p
    topology:
      nodes:
        s1: {kind: switch}
        s2: {kind: switch, program: prog.p4}
    """
    spec = load_topology(make(tmp_path, text), program="ecmp_router")
    assert spec.switches["s1"].program == builtin_program("ecmp_router").resolve()
    assert spec.switches["s2"].program.name == "prog.p4"


def test_program_argument_that_no_switch_takes_is_refused(tmp_path):
    with pytest.raises(ConfigError) as info:
        load_topology(make(tmp_path, GOOD), program="ecmp_router")
    err = info.value
    assert err.line == line_of(GOOD, "program: prog.p4")
    assert "--program ecmp_router would run on no switch: every switch names its own program" in err.message
    text = """\
    name: p
    defaults: {program: prog.p4}
    topology:
      nodes:
        s1: {kind: switch}
    """
    err = error(tmp_path, text, program="ecmp_router")
    assert err.line == 2 and "defaults.program names 'prog.p4'" in err.message


def test_controller(tmp_path):
    (tmp_path / "ctl.py").write_text("class C: pass\n")
    text = """\
    name: c
    topology:
      nodes:
        s1: {kind: switch, program: prog.p4, controller: "ctl.py:C"}
        s2: {kind: switch, program: prog.p4, controller: "my.pkg:Controller"}
    """
    spec = load_topology(make(tmp_path, text))
    assert spec.switches["s1"].controller == f"{(tmp_path / 'ctl.py').resolve()}:C"
    assert spec.switches["s2"].controller == "my.pkg:Controller"


def test_shipped_topologies_load():
    topologies = data_dir("topologies")
    basic = load_topology(topologies / "basic.yaml")
    assert set(basic.switches) == {"s1"} and set(basic.hosts) == {"h1", "h2", "h3"}
    assert basic.switches["s1"].program == builtin_program("ipv4_router").resolve()
    assert basic.switches["s1"].entries.is_file()
    ls = load_topology(topologies / "leaf-spine.yaml")
    assert len(ls.switches) == 4 and len(ls.hosts) == 4 and len(ls.links) == 8
    assert all(s.entries.is_file() for s in ls.switches.values())


# -- YAML validation errors: message, line and field -------------------------------------------------------

def test_unknown_node_in_link(tmp_path):
    text = GOOD.replace('["s2:p1", "h2:eth0"]', '["s2:p1", "h9:eth0"]')
    err = error(tmp_path, text)
    assert err.line == line_of(text, "h9")
    assert "topology.links[1].endpoints: unknown node 'h9'" in err.message


def test_unknown_node_lists_or_suggests(tmp_path):
    text = GOOD.replace('["s1:p2", "s2:p2"]', '["s1:p2", "s3:p2"]')
    err = error(tmp_path, text)
    assert err.line == line_of(text, "s3:p2")
    assert "unknown node 's3' (nodes: s1, s2, h1, h2)" in err.message
    text = GOOD.replace("s2", "spine2").replace('["s1:p2", "spine2:p2"]', '["s1:p2", "spine22:p2"]')
    err = error(tmp_path, text)
    assert "unknown node 'spine22'; did you mean 'spine2'?" in err.message


def test_port_used_twice(tmp_path):
    text = GOOD.replace('["s1:p2", "s2:p2"]', '["s1:p1", "s2:p2"]')
    err = error(tmp_path, text)
    assert err.line == line_of(text, '"s1:p1"', 2)
    assert "topology.links[2].endpoints" in err.message
    assert f"port 1 of 's1' is used twice (also by the link at line {line_of(text, 's1:p1')})" in err.message


def test_port_used_twice_in_other_spelling(tmp_path):
    text = GOOD.replace('["s1:p2", "s2:p2"]', '["s1:eth1", "s2:p2"]')
    err = error(tmp_path, text)
    assert "port 1 of 's1' is used twice" in err.message


@pytest.mark.parametrize("field,value,expect", [
    ("bandwidth", "100Gbs", "unknown bandwidth unit 'Gbs'"),
    ("bandwidth", "fast", "cannot read 'fast' as a bandwidth"),
    ("latency", "5 parsecs", "unknown time unit 'parsecs'"),
    ("latency", "soon", "cannot read 'soon' as a time"),
    ("latency", "3h", "unknown time unit 'h'"),
    ("queue", "10 apples", "unknown queue unit 'apples'"),
    ("queue", "-5p", "cannot read '-5p' as a queue size"),
    ("queue", "64XB", "unknown queue unit 'XB'"),
    ("loss", "150%", "must be between 0 and 1"),
    ("corruption", "often", "cannot read 'often'"),
    ("mtu", "big", "must be a whole number 68..65535"),
])
def test_bad_units_in_link(tmp_path, field, value, expect):
    text = GOOD.replace(f"      {field}: ", f"      {field}: {value}\n      #: ", 1)
    err = error(tmp_path, text)
    assert err.line == line_of(text, f"{field}: {value}")
    assert f"topology.links[2].{field}: " in err.message
    assert expect in err.message
    assert err.token == value


def test_link_overhead_per_link_and_in_defaults(tmp_path):
    """``overhead`` defaults to ethernet, is set per link or in ``defaults:``, and reaches the
    network's links (the wire time itself: tests/net/devices/test_link.py)."""
    from dataplane.net.fabric.network import Network

    assert [ln.overhead for ln in load_topology(make(tmp_path, GOOD)).links] == ["ethernet"] * 3
    text = GOOD.replace("      mtu: 9000\n", "      mtu: 9000\n      overhead: none\n")
    assert [ln.overhead for ln in load_topology(make(tmp_path, text)).links] == ["ethernet", "ethernet", "none"]
    text = GOOD.replace("  queue: 100p\n", "  queue: 100p\n  overhead: none\n", 1)
    text = text.replace("    - endpoints: [\"s1:p1\", \"h1:eth0\"]\n",
                        "    - endpoints: [\"s1:p1\", \"h1:eth0\"]\n      overhead: ethernet\n")
    spec = load_topology(make(tmp_path, text))
    assert [ln.overhead for ln in spec.links] == ["ethernet", "none", "none"]
    # Into the network's links (hosts only: no program to compile).
    pairs = """\
    name: pairs
    defaults: {overhead: none}
    topology:
      nodes: {h1: {kind: host}, h2: {kind: host}, h3: {kind: host}, h4: {kind: host}}
      links:
        - {endpoints: [h1, h2], overhead: ethernet}
        - {endpoints: [h3, h4]}
    """
    net = Network.from_spec(load_topology(make(tmp_path, pairs, "pairs.yaml")))
    assert [ln.overhead for ln in net.links] == ["ethernet", "none"]
    assert [ln.wire_bytes(60) for ln in net.links] == [60 + 4 + 8 + 12, 60]


@pytest.mark.parametrize("where", ["link", "defaults"])
def test_bad_link_overhead_is_located(tmp_path, where):
    if where == "link":
        text = GOOD.replace("      mtu: 9000\n", "      mtu: 9000\n      overhead: infiniband\n")
        field = "topology.links[2].overhead"
    else:
        text = GOOD.replace("  queue: 100p\n", "  queue: 100p\n  overhead: infiniband\n", 1)
        field = "defaults.overhead"
    err = error(tmp_path, text)
    assert err.line == line_of(text, "overhead: infiniband")
    assert f"{field}: must be one of ethernet, none" in err.message and "'infiniband'" in err.message


def test_bad_unit_in_defaults(tmp_path):
    text = GOOD.replace("latency: 2us", "latency: 2 fortnights")
    err = error(tmp_path, text)
    assert err.line == line_of(text, "fortnights")
    assert "defaults.latency: unknown time unit 'fortnights' in '2 fortnights'" in err.message


def test_bad_unit_in_switch(tmp_path):
    text = GOOD.replace("      entries: s1.json\n", "      entries: s1.json\n      processing_latency: 1 jiffy\n")
    err = error(tmp_path, text)
    assert err.line == line_of(text, "jiffy")
    assert "topology.nodes.s1.processing_latency:" in err.message


def test_missing_program_file(tmp_path):
    text = GOOD.replace("program: prog.p4\n", "program: nothere.p4\n")
    err = error(tmp_path, text)
    assert err.line == line_of(text, "nothere.p4")
    assert "topology.nodes.s1.program: program file 'nothere.p4' not found" in err.message
    assert str(tmp_path / "nothere.p4") in err.message


def test_unknown_builtin_program(tmp_path):
    text = GOOD.replace("program: prog.p4\n", "program: no_such_router\n")
    err = error(tmp_path, text)
    assert "program file 'no_such_router' not found" in err.message
    assert "built-in programs:" in err.message and "ipv4_router" in err.message


def test_missing_entries_file(tmp_path):
    text = GOOD.replace("entries: s1.json", "entries: gone.json")
    err = error(tmp_path, text)
    assert err.line == line_of(text, "gone.json")
    assert "topology.nodes.s1.entries: entries file 'gone.json' not found" in err.message


def test_switch_with_no_program(tmp_path):
    text = GOOD.replace("    s2: {kind: switch, program: prog.p4}\n", "    s2: {kind: switch}\n")
    err = error(tmp_path, text)
    assert err.line == line_of(text, "s2: {kind")
    assert "topology.nodes.s2.program: switch 's2' has no program" in err.message


def test_duplicate_node_names(tmp_path):
    text = GOOD.replace("    h2: {kind: host", "    s1: {kind: host")
    err = error(tmp_path, text)
    assert err.line == line_of(text, "    s1: {kind: host")
    assert f"topology.nodes: duplicate node name 's1' (first defined at line {line_of(text, '    s1:')})" in err.message


def test_host_with_two_links(tmp_path):
    text = GOOD.replace('["s1:p2", "s2:p2"]', '["s1:p2", "h1:eth0"]')
    err = error(tmp_path, text)
    assert err.line == line_of(text, '"h1:eth0"', 2)
    assert f"host 'h1' has two links (the first is at line {line_of(text, 'h1:eth0')})" in err.message


def test_host_interface_other_than_eth0(tmp_path):
    text = GOOD.replace('"h1:eth0"', '"h1:eth1"')
    err = error(tmp_path, text)
    assert err.line == line_of(text, "h1:eth1")
    assert "host 'h1' has one interface, eth0; got 'eth1'" in err.message


def test_switch_endpoint_needs_a_port(tmp_path):
    text = GOOD.replace('"s2:p2"]', '"s2"]')
    err = error(tmp_path, text)
    assert "switch endpoint 's2' needs a port" in err.message


@pytest.mark.parametrize("port,expect", [("p511", "out of range 0..510"), ("x1", "bad switch port 'x1'")])
def test_bad_switch_port(tmp_path, port, expect):
    text = GOOD.replace('"s2:p2"]', f'"s2:{port}"]')
    err = error(tmp_path, text)
    assert err.line == line_of(text, f"s2:{port}")
    assert expect in err.message


@pytest.mark.parametrize("mac,expect", [
    ("08:00:00:00:01", "bad MAC address '08:00:00:00:01'"),
    ("08:00:00:00:01:zz", "bad MAC address"),
    ("ff:ff:ff:ff:ff:ff", "group (multicast/broadcast) address"),
    ("01:00:5e:00:00:01", "group (multicast/broadcast) address"),
])
def test_bad_mac(tmp_path, mac, expect):
    text = GOOD.replace('mac: "08:00:00:00:01:11"', f'mac: "{mac}"')
    err = error(tmp_path, text)
    assert err.line == line_of(text, f'mac: "{mac}"')
    assert "topology.nodes.h1.mac: " in err.message and expect in err.message


def test_duplicate_mac(tmp_path):
    text = GOOD.replace('"08:00:00:00:02:22"', '"08:00:00:00:01:11"')
    err = error(tmp_path, text)
    assert err.line == line_of(text, "h2:")
    assert "MAC address 08:00:00:00:01:11 is already used by host 'h1'" in err.message


@pytest.mark.parametrize("ip,expect", [
    ("10.0.1.300/24", "bad IPv4 address '10.0.1.300'"),
    ("10.0.1/24", "bad IPv4 address"),
    ("10.0.1.1/33", "bad prefix length in '10.0.1.1/33'"),
    ("host1", "bad IPv4 address"),
])
def test_bad_ip(tmp_path, ip, expect):
    text = GOOD.replace("ip: 10.0.1.1/24", f"ip: {ip}")
    err = error(tmp_path, text)
    assert err.line == line_of(text, f"ip: {ip}")
    assert "topology.nodes.h1.ip: " in err.message and expect in err.message


def test_duplicate_ip(tmp_path):
    text = GOOD.replace("ip: 10.0.2.2/24", "ip: 10.0.1.1/24")
    err = error(tmp_path, text)
    assert "IPv4 address 10.0.1.1 is already used by host 'h1'" in err.message


def test_bad_gateway_and_arp(tmp_path):
    text = GOOD.replace("gateway: 10.0.1.10", "gateway: 10.0.1")
    err = error(tmp_path, text)
    assert err.line == line_of(text, "gateway: 10.0.1")
    assert "topology.nodes.h1.gateway: bad IPv4 address" in err.message
    text = GOOD.replace('arp: {10.0.1.10: "08:00:00:00:01:00"}', 'arp: {10.0.1.10: "08:00"}')
    err = error(tmp_path, text)
    assert err.line == line_of(text, "arp:")
    assert "topology.nodes.h1.arp.10.0.1.10: bad MAC address '08:00'" in err.message


def test_unknown_field_suggests(tmp_path):
    text = GOOD.replace("entries: s1.json", "entires: s1.json")
    err = error(tmp_path, text)
    assert err.line == line_of(text, "entires")
    assert "topology.nodes.s1.entires: unknown field 'entires'" in err.message
    assert "did you mean 'entries'?" in err.message


def test_unknown_kind(tmp_path):
    text = GOOD.replace("    s2: {kind: switch,", "    s2: {kind: router,")
    err = error(tmp_path, text)
    assert err.line == line_of(text, "kind: router")
    assert "topology.nodes.s2.kind: unknown kind 'router' (use switch or host)" in err.message


def test_missing_kind(tmp_path):
    text = GOOD.replace("    s2: {kind: switch, program: prog.p4}", "    s2: {program: prog.p4}")
    err = error(tmp_path, text)
    assert "topology.nodes.s2.kind: missing 'kind'" in err.message


def test_link_shapes(tmp_path):
    err = error(tmp_path, GOOD.replace('endpoints: ["s1:p2", "s2:p2"]', 'endpoints: ["s1:p2"]'))
    assert "topology.links[2].endpoints: must list two endpoints" in err.message
    err = error(tmp_path, GOOD.replace('- endpoints: ["s1:p2", "s2:p2"]', '- ends: ["s1:p2", "s2:p2"]'))
    assert "topology.links[2].ends: unknown field 'ends'" in err.message
    err = error(tmp_path, GOOD.replace('["s1:p2", "s2:p2"]', '["s1:p2", "s1:p2"]'))
    assert "both endpoints are 's1:p2'" in err.message


def test_controller_file_missing(tmp_path):
    text = GOOD.replace("      entries: s1.json\n", "      entries: s1.json\n      controller: \"ctl.py:Ctl\"\n")
    err = error(tmp_path, text)
    assert err.line == line_of(text, "ctl.py")
    assert "topology.nodes.s1.controller: controller file 'ctl.py' not found" in err.message
    text = GOOD.replace("      entries: s1.json\n", "      entries: s1.json\n      controller: ctl.py\n")
    err = error(tmp_path, text)
    assert 'must be written "file.py:ClassName"' in err.message


def test_invalid_yaml_reports_line(tmp_path):
    text = GOOD.replace("    h2: {kind: host,", "    h2: {kind: host,,")
    err = error(tmp_path, text)
    assert err.line == line_of(text, "h2: {kind")
    assert err.message.startswith("invalid YAML:")
    assert err.column and "\n" not in str(err)      # one located line, not pyyaml's four


def test_structure_errors(tmp_path):
    assert "missing 'topology'" in error(tmp_path, "name: x\n").message
    assert "the topology file is empty" in error(tmp_path, "\n").message
    err = error(tmp_path, "name: x\ntopology:\n  nodes: []\n")
    assert err.line == 3 and "topology.nodes: must be a mapping" in err.message
    err = error(tmp_path, "name: x\ntopology:\n  nodes: {s1: {kind: switch, program: prog.p4}}\n  links: {a: 1}\n")
    assert err.line == 4 and "topology.links: must be a list" in err.message


# -- the tutorials' topology.json -----------------------------------------------------------------------

TUTORIAL = {
    "hosts": {
        "h1": {"ip": "10.0.1.1/24", "mac": "08:00:00:00:01:11",
               "commands": ["route add default gw 10.0.1.10 dev eth0",
                            "arp -i eth0 -s 10.0.1.10 08:00:00:00:01:00"]},
        "h2": {"ip": "10.0.2.2/24", "mac": "08:00:00:00:02:22",
               "commands": ["route add default gw 10.0.2.20 dev eth0",
                            "arp -i eth0 -s 10.0.2.20 08:00:00:00:02:00"]},
        "h3": {"ip": "10.0.3.3/24", "mac": "08:00:00:00:03:33"},
    },
    "switches": {
        "s1": {"runtime_json": "pod-topo/s1-runtime.json"},
        "s2": {"runtime_json": "pod-topo/s2-runtime.json"},
    },
    "links": [
        ["h1", "s1-p1"], ["h2", "s2-p1"], ["s1-p2", "s2-p2", "5ms", 0.5], ["h3", "s1-p3", 2],
    ],
}


def exercise(tmp_path: Path, topo: dict) -> Path:
    """The tutorials layout: exercise dir with the program, topology and runtime files in pod-topo/."""
    (tmp_path / "basic.p4").write_text("// program\n")
    pod = tmp_path / "pod-topo"
    pod.mkdir(exist_ok=True)
    for s in ("s1", "s2"):
        (pod / f"{s}-runtime.json").write_text('{"target": "bmv2", "table_entries": []}\n')
    path = pod / "topology.json"
    path.write_text(tutorial_json(topo))
    return path


def tutorial_json(topo: dict) -> str:
    """One host, switch or link per line, the way the tutorials' files are laid out."""
    out = ["{"]
    for section in ("hosts", "switches"):
        items = [f"    {json.dumps(k)}: {json.dumps(v)}" for k, v in topo.get(section, {}).items()]
        out.append(f'  "{section}": {{\n' + ",\n".join(items) + "\n  },")
    out.append('  "links": [\n' + ",\n".join(f"    {json.dumps(lk)}" for lk in topo.get("links", [])) + "\n  ]")
    return "\n".join(out) + "\n}\n"


def tutorial_error(tmp_path: Path, topo: dict, **kwargs) -> ConfigError:
    path = exercise(tmp_path, topo)
    with pytest.raises(ConfigError) as info:
        load_topology(path, **kwargs)
    assert info.value.file == str(path)
    return info.value


def json_line(path: Path, needle: str) -> int:
    return next(i + 1 for i, line in enumerate(path.read_text().splitlines()) if needle in line)


def test_tutorial_topology(tmp_path):
    path = exercise(tmp_path, TUTORIAL)
    spec = load_topology(path, program=tmp_path / "basic.p4")
    assert spec.name == "pod-topo"
    assert spec.switches["s1"].program == (tmp_path / "basic.p4").resolve()
    assert spec.switches["s1"].entries == (tmp_path / "pod-topo/s1-runtime.json").resolve()
    h1 = spec.hosts["h1"]
    assert (h1.ip, h1.prefix_len, h1.mac) == (parse_ipv4("10.0.1.1"), 24, 0x080000000111)
    assert h1.gateway == parse_ipv4("10.0.1.10")
    assert h1.static_arp == {parse_ipv4("10.0.1.10"): parse_mac("08:00:00:00:01:00")}
    assert spec.hosts["h3"].gateway is None and spec.hosts["h3"].static_arp == {}
    ends = [(lk.a, lk.b) for lk in spec.links]
    assert ends == [(("h1", 0), ("s1", 1)), (("h2", 0), ("s2", 1)), (("s1", 2), ("s2", 2)), (("h3", 0), ("s1", 3))]
    assert spec.links[2].latency_ns == 5_000_000 and spec.links[2].bandwidth_bps == 500_000
    assert spec.links[3].latency_ns == 2_000_000 and spec.links[3].bandwidth_bps == DEFAULT_BANDWIDTH_BPS
    assert spec.links[0].latency_ns == 0
    assert spec.links[2].line == json_line(path, '"s1-p2"')


def test_tutorial_builtin_program_and_per_switch_program(tmp_path):
    topo = json.loads(json.dumps(TUTORIAL))
    (tmp_path / "firewall.p4").write_text("// fw\n")
    topo["switches"]["s1"]["program"] = "build/firewall.json"   # the compiled JSON, as the firewall exercise writes
    spec = load_topology(exercise(tmp_path, topo), program="ipv4_router")
    assert spec.switches["s1"].program == (tmp_path / "firewall.p4").resolve()
    assert spec.switches["s2"].program == builtin_program("ipv4_router").resolve()


def test_tutorial_ports_assigned_when_left_out(tmp_path):
    topo = {"hosts": {"h1": {"ip": "10.0.1.1/24"}, "h2": {"ip": "10.0.2.2/24"}},
            "switches": {"s1": {}}, "links": [["h1", "s1"], ["h2", "s1-p1"]]}
    spec = load_topology(exercise(tmp_path, topo), program="ipv4_router")
    assert [lk.b for lk in spec.links] == [("s1", 2), ("s1", 1)]
    assert spec.hosts["h1"].mac == 0x02000A000101


def test_tutorial_no_program(tmp_path):
    err = tutorial_error(tmp_path, TUTORIAL)
    assert err.line == json_line(tmp_path / "pod-topo/topology.json", '"s1": {')
    assert "switches.s1.program: switch 's1' has no program" in err.message
    assert "basic.p4" in err.message   # the hint names the program found next to the topology


def test_tutorial_unknown_node(tmp_path):
    topo = json.loads(json.dumps(TUTORIAL))
    topo["links"][2] = ["s1-p2", "s9-p2"]
    err = tutorial_error(tmp_path, topo, program="ipv4_router")
    assert err.line == json_line(tmp_path / "pod-topo/topology.json", '"s9-p2"')
    assert "links[2]: unknown node 's9'" in err.message


def test_tutorial_port_used_twice(tmp_path):
    topo = json.loads(json.dumps(TUTORIAL))
    topo["links"][3] = ["h3", "s1-p2"]
    err = tutorial_error(tmp_path, topo, program="ipv4_router")
    path = tmp_path / "pod-topo/topology.json"
    assert err.line == json_line(path, '["h3", "s1-p2"]')
    assert f"links[3]: port 2 of 's1' is used twice (also by the link at line {json_line(path, '5ms')})" in err.message


def test_tutorial_host_with_two_links(tmp_path):
    topo = json.loads(json.dumps(TUTORIAL))
    topo["links"][3] = ["h1", "s1-p3"]
    err = tutorial_error(tmp_path, topo, program="ipv4_router")
    assert "links[3]: host 'h1' has two links" in err.message


def test_tutorial_missing_runtime_json(tmp_path):
    topo = json.loads(json.dumps(TUTORIAL))
    topo["switches"]["s2"]["runtime_json"] = "pod-topo/s9-runtime.json"
    err = tutorial_error(tmp_path, topo, program="ipv4_router")
    assert err.line == json_line(tmp_path / "pod-topo/topology.json", 's9-runtime.json')
    assert "switches.s2.runtime_json: runtime JSON file 'pod-topo/s9-runtime.json' not found" in err.message


def test_tutorial_bad_values(tmp_path):
    topo = json.loads(json.dumps(TUTORIAL))
    topo["hosts"]["h2"]["mac"] = "08:00:00:00:02"
    err = tutorial_error(tmp_path, topo, program="ipv4_router")
    assert err.line == json_line(tmp_path / "pod-topo/topology.json", '"h2": {')
    assert "hosts.h2.mac: bad MAC address" in err.message
    topo = json.loads(json.dumps(TUTORIAL))
    topo["hosts"]["h2"]["ip"] = "10.0.2.256/24"
    assert "hosts.h2.ip: bad IPv4 address" in tutorial_error(tmp_path, topo, program="ipv4_router").message
    topo = json.loads(json.dumps(TUTORIAL))
    topo["hosts"]["h1"]["commands"][1] = "arp -i eth0 -s 10.0.1.10 08:00"
    assert "hosts.h1.commands: bad MAC address" in tutorial_error(tmp_path, topo, program="ipv4_router").message
    topo = json.loads(json.dumps(TUTORIAL))
    topo["links"][2] = ["s1-p2", "s2-p2", "5 weeks"]
    err = tutorial_error(tmp_path, topo, program="ipv4_router")
    assert err.line == json_line(tmp_path / "pod-topo/topology.json", "5 weeks")
    assert "links[2][2]: unknown time unit 'weeks' in '5 weeks'" in err.message


def test_tutorial_node_must_be_an_object_with_known_keys(tmp_path):
    topo = json.loads(json.dumps(TUTORIAL))
    topo["switches"]["s2"] = "pod-topo/s2-runtime.json"
    assert "switches.s2: must be a JSON object, got 'pod-topo/s2-runtime.json'" in \
        tutorial_error(tmp_path, topo, program="ipv4_router").message
    topo = json.loads(json.dumps(TUTORIAL))
    topo["hosts"]["h3"]["gateway"] = "10.0.3.30"
    err = tutorial_error(tmp_path, topo, program="ipv4_router")
    assert "hosts.h3.gateway: unknown field 'gateway'" in err.message
    assert err.line == json_line(tmp_path / "pod-topo/topology.json", '"h3": {')


def test_tutorial_duplicate_node(tmp_path):
    topo = json.loads(json.dumps(TUTORIAL))
    topo["switches"]["h1"] = {}
    err = tutorial_error(tmp_path, topo, program="ipv4_router")
    assert "duplicate node name 'h1' (also a host)" in err.message
    path = exercise(tmp_path, TUTORIAL)
    path.write_text(path.read_text().replace('"h3": {', '"h1": {'))
    with pytest.raises(ConfigError) as info:
        load_topology(path, program="ipv4_router")
    assert "hosts: duplicate node name 'h1'" in info.value.message


def test_tutorial_invalid_json(tmp_path):
    path = exercise(tmp_path, TUTORIAL)
    path.write_text(path.read_text().replace('"s2": {', '"s2" {'))
    with pytest.raises(ConfigError) as info:
        load_topology(path, program="ipv4_router")
    assert info.value.line == json_line(path, '"s2" {')
    assert info.value.message.startswith("invalid JSON")


def test_missing_topology_file(tmp_path):
    with pytest.raises(ConfigError) as info:
        load_topology(tmp_path / "nope.yaml")
    assert "cannot read topology file" in info.value.message
