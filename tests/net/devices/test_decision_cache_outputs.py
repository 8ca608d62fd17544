"""The decision cache changes no output: runs with it and without it write the same bytes.

Each command runs twice in this process, with the switches' decision cache on (the default)
and off (``SwitchNode.decision_cache = False``); stdout (``--json``) and every file written
under ``--out`` (pcaps, metrics, CSVs, JSON; not PNGs) must be equal, and the run with the cache
must have answered packets from it (else the comparison proves nothing), with the IPv4
checksum's one-sum arithmetic (``Shape.fast``). ``pic`` writes tables
while traffic flows (its controller repairs routes), so stale decisions would show there.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from dataplane.arch.v1model_decisions import V1Decisions
from dataplane.cli import main
from dataplane.net.devices.switch_node import SwitchNode

pytestmark = pytest.mark.simulation      # runs in the PyPy re-run only, when there is one (tests/conftest.py)

COMMANDS = {
    "run-incast": ["run", "--traffic", "incast", "--duration", "2ms", "--seed", "3", "--json"],
    "run-all-to-all": ["run", "--traffic", "all-to-all", "--duration", "1ms", "--json"],
    "run-basic-pingall": ["run", "basic", "--json"],
    "pic-flat": ["scenario", "pic", "--prefixes", "1000", "--modes", "flat", "--json"],
    "vxlan": ["scenario", "vxlan", "--hosts", "4", "--duration", "200us", "--json"],
}


def without_wall_clock(value):
    if isinstance(value, dict):
        return {k: without_wall_clock(v) for k, v in value.items() if "wall" not in k and k != "provenance"}
    if isinstance(value, list):
        return [without_wall_clock(v) for v in value]
    return value


def outputs(args: list[str], out: Path) -> tuple[object, dict[str, object]]:
    result = CliRunner().invoke(main, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output[-3000:]
    files: dict[str, object] = {}
    for p in sorted(out.rglob("*")):
        if p.is_file() and p.suffix not in (".png", ".html"):
            data = p.read_bytes()
            files[str(p.relative_to(out))] = without_wall_clock(json.loads(data)) if p.suffix == ".json" else data
    return without_wall_clock(json.loads(result.stdout)), files


@pytest.mark.parametrize("name", list(COMMANDS))
def test_runs_write_the_same_bytes_with_and_without_the_cache(name, tmp_path, monkeypatch):
    made: list[V1Decisions] = []
    init = V1Decisions.__init__

    def recording(self, *a, **k):
        init(self, *a, **k)
        made.append(self)

    monkeypatch.setattr(V1Decisions, "__init__", recording)
    with_cache = outputs(COMMANDS[name], tmp_path / "on")
    assert made and sum(d.cache.hits for d in made) > 0, "the cache answered no packet"
    # the IPv4 checksum's one-sum arithmetic (Shape.fast, DecisionCache._one_shape) was what answered
    fast = [d for d in made if d.cache.hits and any(sh.fast is not None for sh in d.cache.shapes)]
    assert fast, "no cache answered through the one-sum checksum"
    made.clear()
    monkeypatch.setattr(SwitchNode, "decision_cache", False)
    without = outputs(COMMANDS[name], tmp_path / "off")
    assert not made
    assert with_cache[0] == without[0]
    assert sorted(with_cache[1]) == sorted(without[1])
    for file, data in without[1].items():
        assert with_cache[1][file] == data, f"{file} differs with the decision cache"


def test_a_switch_keeps_a_cache_unless_turned_off_or_refused():
    """``params: {decision_cache: false}`` turns one switch's cache off; a program with state
    (ecn.p4's registers) has none, and the switch says why."""
    from dataplane.net.fabric.network import Network
    from dataplane.net.topology.load import load_topology
    from dataplane.resources import builtin_program, builtin_topology

    spec = load_topology(builtin_topology("leaf-spine"))
    spec.switches["leaf1"].params["decision_cache"] = False
    spec.switches["leaf2"].program = builtin_program("ecn")
    spec.switches["leaf2"].entries = None
    net = Network.from_spec(spec, seed=1)
    assert net.switches["leaf1"].decisions is None and net.switches["leaf1"].decision_refusal == "turned off"
    assert net.switches["leaf2"].decisions is None and "queue_bytes" in net.switches["leaf2"].decision_refusal
    assert isinstance(net.switches["spine1"].decisions, V1Decisions) and net.switches["spine1"].decision_refusal == ""


def test_a_program_reading_the_fabrics_clock_or_tx_bytes_has_no_cache():
    """int.p4 reads timestamp_ns and port_tx_bytes, which the fabric writes before each run: a
    cached decision would stamp a packet with an earlier packet's clock, so the switch has none."""
    from dataplane.net.fabric.network import Network
    from dataplane.net.topology.load import load_topology
    from dataplane.resources import builtin_topology

    net = Network.from_spec(load_topology(builtin_topology("int-leaf-spine")), seed=1)
    for switch in net.switches.values():
        assert switch.decisions is None
        assert "timestamp_ns" in switch.decision_refusal
