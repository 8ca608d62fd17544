"""`kind: dpu` in topology YAML: fields, defaults, port roles and every validation error
(file, line and field), plus packet-rate units and the checks on programmatic specs."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from dataplane.control.config_errors import ConfigError
from dataplane.net.core.units import UnitError, parse_packet_rate
from dataplane.net.fabric.network import Network, NetworkError
from dataplane.net.topology.load import load_topology
from dataplane.net.topology.spec import DpuSpec, HostSpec, LinkSpec, SwitchSpec, TopologySpec

DATA = Path(__file__).parents[1] / "data"
PNA = DATA / "dpu_pass.p4"
V1MODEL = DATA / "failover.p4"

TOPO = """\
name: t
topology:
  nodes:
    d1:
      kind: dpu
      program: {program}
{extra}
    s1: {{kind: switch, program: {switch_program}}}
    h1: {{kind: host}}
    h2: {{kind: host}}
  links:
    - endpoints: ["h1:eth0", "d1:p1"]
    - endpoints: ["d1:p0", "s1:p1"]
    - endpoints: ["d1:p2", "h2"]
"""


def write(tmp_path: Path, extra: str = "", program: Path = PNA, switch_program: Path = V1MODEL) -> Path:
    """The topology above, with ``extra`` lines (already indented) in d1's body."""
    path = tmp_path / "topo.yaml"
    path.write_text(TOPO.format(program=program, switch_program=switch_program, extra=extra))
    return path


def error(path: Path) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        load_topology(path)
    return info.value


def line_of(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def test_dpu_fields_and_defaults():
    """Left out: 400 Gb/s, 150 Mpps, 2 us, 1024 packets, port roles from the links."""
    spec = load_topology(DATA / "dpu.yaml")
    d = spec.dpus["d1"]
    assert (d.program, d.entries) == (PNA, DATA / "dpu_pass.txt")
    assert (d.rate_bps, d.packet_rate_pps, d.latency_ns) == (400 * 10**9, 150 * 10**6, 2_000)
    assert d.queue == (1024, "packets")
    assert d.host_ports is None and d.net_ports is None
    assert spec.dpu_net_ports("d1") == {0}        # p1 faces h1; p0 faces the switch


def test_dpu_cost_fields_are_read_with_units(tmp_path):
    path = write(tmp_path, "      rate: 200Gbps\n      packet_rate: 2.5Mpps\n      latency: 1.5us\n      queue: 64KB")
    d = load_topology(path).dpus["d1"]
    assert (d.rate_bps, d.packet_rate_pps, d.latency_ns, d.queue) == (200 * 10**9, 2_500_000, 1_500, (64_000, "bytes"))


def test_default_port_roles_make_host_linked_ports_host_ports(tmp_path):
    """Two host links (p1, p2) and one switch link (p0): only p0 is a net port."""
    assert load_topology(write(tmp_path)).dpu_net_ports("d1") == {0}


@pytest.mark.parametrize("extra, net", [
    ("      host_ports: [p1]", {0, 2}),                 # the rest of the linked ports are net ports
    ("      net_ports: [0, eth2]", {0, 2}),
    ("      host_ports: [1]\n      net_ports: [p0, p2]", {0, 2}),
])
def test_explicit_port_lists(tmp_path, extra, net):
    assert load_topology(write(tmp_path, extra)).dpu_net_ports("d1") == net


def test_explicit_net_ports_reach_the_pna_program(tmp_path):
    net = Network.from_spec(load_topology(write(tmp_path, "      net_ports: [p0, p2]")))
    assert net.dpu("d1").dp.is_net_port(2) and not net.dpu("d1").dp.is_net_port(1)


def test_v1model_program_on_a_dpu_is_an_error(tmp_path):
    path = write(tmp_path, program=V1MODEL)
    err = error(path)
    assert err.line == line_of(path, "program: ") and err.file == str(path)
    assert "topology.nodes.d1.program: a DPU runs PNA programs" in str(err) and "failover.p4 is a v1model" in str(err)


def test_pna_program_on_a_switch_is_an_error(tmp_path):
    path = write(tmp_path, switch_program=PNA)
    err = error(path)
    assert err.line == line_of(path, "s1:")
    assert "topology.nodes.s1.program: a switch runs v1model and PSA programs; dpu_pass.p4 is a PNA program" in str(err)


def test_architecture_hidden_in_an_include_is_caught_when_the_network_is_built(tmp_path):
    """A file whose own text names no architecture passes the reader; the compiled program
    is checked when the network is built, with the same file, line and field."""
    wrapped = tmp_path / "wrapped.p4"
    wrapped.write_text(f'#include "{V1MODEL}"\n')
    path = write(tmp_path, program=wrapped)
    spec = load_topology(path)
    with pytest.raises(ConfigError) as info:
        Network.from_spec(spec)
    assert info.value.file == str(path) and info.value.line == line_of(path, "d1:")
    assert "topology.nodes.d1.program: DPU 'd1' needs a PNA program" in str(info.value)


def test_unknown_port_in_host_ports(tmp_path):
    path = write(tmp_path, "      host_ports: [p1, p7]")
    err = error(path)
    assert err.line == line_of(path, "host_ports")
    assert "topology.nodes.d1.host_ports: unknown port 7: no link uses port 7 of 'd1' (linked ports: 0, 1, 2)" \
        in str(err)


@pytest.mark.parametrize("extra, field, message", [
    ("      host_ports: [p1]\n      net_ports: [p0, p1, p2]", "host_ports", "port 1 is in both"),
    ("      host_ports: [p1]\n      net_ports: [p0]", "host_ports", "linked port 2 is in neither"),
    ("      net_ports: [up]", "net_ports", "bad port 'up'"),
    ("      net_ports: [p999]", "net_ports", "bad port 'p999'"),
])
def test_bad_port_lists(tmp_path, extra, field, message):
    path = write(tmp_path, extra)
    err = error(path)
    assert err.line == line_of(path, f"{field}:") and f"topology.nodes.d1.{field}: {message}" in str(err)


@pytest.mark.parametrize("field, value, message", [
    ("packet_rate", "fast", "cannot read 'fast' as a packet rate (e.g. 150Mpps)"),
    ("packet_rate", "150Gbps", "unknown packet-rate unit 'Gbps'"),
    ("packet_rate", "0pps", "packet rate must be at least 1 packet/s"),
    ("rate", "150Mpps", "unknown bandwidth unit 'Mpps'"),
    ("latency", "2 parsecs", "unknown time unit 'parsecs'"),
    ("queue", "0p", "queue size must be a positive whole number"),
])
def test_bad_units(tmp_path, field, value, message):
    path = write(tmp_path, f"      {field}: {value}")
    err = error(path)
    assert err.line == line_of(path, f"{field}:") and f"topology.nodes.d1.{field}: {message}" in str(err)


def test_dpu_needs_its_own_program_and_known_fields(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(textwrap.dedent(f"""\
        name: t
        defaults: {{program: {V1MODEL}}}
        topology:
          nodes:
            d1: {{kind: dpu}}
        """))
    err = error(path)
    assert err.line == 5 and "topology.nodes.d1.program: dpu 'd1' has no program" in str(err)
    path = write(tmp_path, "      packet_rte: 1Mpps")
    assert "unknown field 'packet_rte'" in str(error(path)) and "did you mean 'packet_rate'" in str(error(path))


def test_dpu_endpoint_needs_a_port(tmp_path):
    path = write(tmp_path)
    path.write_text(path.read_text().replace('"d1:p2"', '"d1"'))
    assert "DPU endpoint 'd1' needs a port" in str(error(path))


@pytest.mark.parametrize("text, pps", [("150Mpps", 150_000_000), ("500 Kpps", 500_000), ("10pps", 10),
                                       (2e6, 2_000_000), ("1.5Gpps", 1_500_000_000)])
def test_parse_packet_rate(text, pps):
    assert parse_packet_rate(text) == pps


def test_parse_packet_rate_refuses_nonsense():
    for bad in ("-1Mpps", "0.1pps", "1Mbps", ""):
        with pytest.raises(UnitError):
            parse_packet_rate(bad)


def _spec(dpu: DpuSpec, switch_program: Path = V1MODEL) -> TopologySpec:
    """h1 - d1 - s1, built in Python as a scenario would."""
    spec = TopologySpec(name="py")
    spec.dpus["d1"] = dpu
    spec.switches["s1"] = SwitchSpec("s1", switch_program)
    spec.hosts["h1"] = HostSpec("h1", mac=0x020000000001, ip=0x0A000001)
    spec.links += [LinkSpec(("h1", 0), ("d1", 1)), LinkSpec(("d1", 0), ("s1", 1))]
    return spec


def test_programmatic_specs_are_checked_too():
    """Without a file there is no line to cite: a NetworkError names the node and field."""
    with pytest.raises(NetworkError, match="topology.nodes.d1.program: DPU 'd1' needs a PNA program"):
        Network.from_spec(_spec(DpuSpec("d1", V1MODEL)))
    with pytest.raises(NetworkError, match=r"topology.nodes.s1.program: switch .s1. needs a v1model "
                                           r"\(V1Switch\) or PSA \(PSA_Switch\) program"):
        Network.from_spec(_spec(DpuSpec("d1", PNA), switch_program=PNA))
    with pytest.raises(NetworkError, match="DPU 'd1' host_ports: unknown port 5"):
        Network.from_spec(_spec(DpuSpec("d1", PNA, host_ports=(1, 5))))
    net = Network.from_spec(_spec(DpuSpec("d1", PNA, packet_rate_pps=1_000_000, latency_ns=0)))
    assert sorted(net.dpu("d1").dp.net_ports) == [0] and net.dpu("d1").slot_ns == 1000
