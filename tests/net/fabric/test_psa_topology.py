"""PSA switches in a network: `kind: switch` runs a PSA_Switch program as it runs a v1model one,
with the egress pipeline behind the port queue, PFC accounting, and clones through the queues."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dataplane.control.config_errors import ConfigError
from dataplane.net.apps.traffic import Traffic
from dataplane.net.fabric.network import Network
from dataplane.net.topology.load import load_topology
from dataplane.resources import data_dir

BASIC = data_dir("topologies") / "basic.yaml"
STF = Path(__file__).parents[2] / "stf"


def basic_psa(tmp_path: Path, extra: str = "") -> Path:
    """topologies/basic.yaml with s1 running psa_router.p4 (the same tables and entries)."""
    text = BASIC.read_text().replace("program: ipv4_router", "program: psa_router" + extra)
    text = text.replace("entries: basic/", f"entries: {BASIC.parent / 'basic'}/")
    path = tmp_path / "basic-psa.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("extra", ["", "\n      pfc: {xoff: 64KB, xon: 32KB}"], ids=["plain", "pfc"])
def test_hosts_ping_each_other_through_a_psa_router(tmp_path, extra):
    net = Network.from_spec(load_topology(basic_psa(tmp_path, extra)), seed=1)
    assert net.switch("s1").dp.architecture == "psa"
    tr = Traffic(net)
    tr.pattern("pingall", 2_000_000)
    net.run(2_000_000)
    results = tr.host_results()
    assert all(r["sent"] == 2 and r["delivered"] == 2 and r["lost"] == 0 for r in results.values()), results
    # Every ping and reply crossed s1 once: 3 hosts x 2 peers x (request + reply).
    assert sum(p.stats.tx_packets for p in net.switch("s1").ports.values()) == 12


def test_psa_and_v1model_routers_deliver_the_same_bytes(tmp_path):
    """Same tables, same traffic: the pcaps of the host links are identical."""
    out = {}
    for name, path in (("v1model", BASIC), ("psa", basic_psa(tmp_path))):
        net = Network.from_spec(load_topology(path), seed=3)
        net.capture(tmp_path / name)
        Traffic(net).pattern("pingall", 1_000_000)
        net.run(1_000_000)
        out[name] = {p.name: p.read_bytes() for p in sorted((tmp_path / name).glob("h*.pcap"))}
    assert out["psa"] == out["v1model"] and len(out["psa"]) == 3


def test_clones_of_a_psa_switch_leave_through_the_port_queues(tmp_path):
    """psa_clone_i2e.p4 on a switch: a frame from h1 goes to its port 1 (h2 sends nothing
    back) and its clone of session 5 out of port 6 (h3, whose link is captured)."""
    topo = tmp_path / "clone.yaml"
    topo.write_text(f"""\
name: clone
topology:
  nodes:
    s1: {{kind: switch, program: {STF / 'psa_clone_i2e.p4'}, entries: {tmp_path / 'cli.txt'}}}
    h1: {{kind: host, ip: 10.0.0.1/24}}
    h2: {{kind: host, ip: 10.0.0.2/24}}
    h3: {{kind: host, ip: 10.0.0.3/24}}
  links:
    - endpoints: ["s1:p9", "h1:eth0"]
    - endpoints: ["s1:p1", "h2:eth0"]
    - endpoints: ["s1:p6", "h3:eth0"]
""")
    (tmp_path / "cli.txt").write_text("mirroring_add 5 6\n")
    net = Network.from_spec(load_topology(topo), seed=0)
    frame = bytes.fromhex("000000000002 000000000001 88b5 00 00 0000 00000001 00000005 00000000".replace(" ", ""))
    net.switch("s1").receive(net.switch("s1").ports[9], frame)
    net.run(100_000)
    ports = net.switch("s1").ports
    assert (ports[1].stats.tx_packets, ports[6].stats.tx_packets) == (1, 1)


def test_a_psa_program_on_a_dpu_is_refused_with_its_line(tmp_path):
    topo = tmp_path / "dpu.yaml"
    topo.write_text(f"""\
name: t
topology:
  nodes:
    d1: {{kind: dpu, program: {STF / 'psa_unicast.p4'}}}
    h1: {{kind: host}}
  links:
    - endpoints: ["d1:p0", "h1:eth0"]
""")
    with pytest.raises(ConfigError, match="a DPU runs PNA programs.*psa program"):
        load_topology(topo)


def test_run_command_runs_a_psa_topology(tmp_path):
    r = subprocess.run([sys.executable, "-c", "from dataplane.cli import run; run()", "run", str(basic_psa(tmp_path)),
                        "--duration", "2ms", "--json"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    hosts = json.loads(r.stdout)["hosts"]
    assert all(h["delivered"] == h["sent"] > 0 for h in hosts.values()), hosts
