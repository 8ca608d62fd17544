"""Which program each switch runs (dataplane.net.topology.programs): a ``--program`` replaces the
program a switch names when the names agree without directory and extension (the tutorials'
``build/firewall.json`` is ``firewall.p4``), fills in the switches that name none, and is an
error where it would run on no switch."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from dataplane.control.config_errors import ConfigError
from dataplane.net.topology.load import load_topology
from dataplane.resources import builtin_program

ROUTER = builtin_program("ipv4_router").read_text()
# The exercise's unfinished program: the router's tables and actions, but nothing applied.
UNFINISHED = ROUTER.replace("ipv4_lpm.apply();", "mark_to_drop(standard_metadata);")


def exercise(tmp_path: Path, s1_program: str | None = "build/fw.json") -> Path:
    """A firewall-like exercise: fw.p4 (unfinished) beside solution/fw.p4, basic.p4 for the rest,
    and a topology.json in pod-topo/ whose s1 names the compiled fw (the tutorials' way)."""
    ex = tmp_path / "fw"
    (ex / "solution").mkdir(parents=True)
    (ex / "pod-topo").mkdir()
    (ex / "fw.p4").write_text(UNFINISHED)
    (ex / "solution" / "fw.p4").write_text(ROUTER)
    (ex / "basic.p4").write_text(ROUTER)
    switches = {"s1": {}, "s2": {}}
    if s1_program is not None:
        switches["s1"]["program"] = s1_program
    topo = {"hosts": {"h1": {"ip": "10.0.1.1/24", "mac": "08:00:00:00:01:11"},
                      "h2": {"ip": "10.0.2.2/24", "mac": "08:00:00:00:02:22"}},
            "switches": switches,
            "links": [["h1", "s1-p1"], ["s1-p2", "s2-p2"], ["h2", "s2-p1"]]}
    path = ex / "pod-topo" / "topology.json"
    path.write_text(json.dumps(topo, indent=1))
    return path


def test_a_program_given_replaces_the_one_of_its_name_and_fills_in_the_rest(tmp_path):
    """--program solution/fw.p4 runs on s1, which names build/fw.json (not the unfinished ./fw.p4
    beside it), and on s2, which names none."""
    topo = exercise(tmp_path)
    solution = topo.parents[1] / "solution" / "fw.p4"
    spec = load_topology(topo, program=solution)
    s1, s2 = spec.switches["s1"], spec.switches["s2"]
    assert s1.program == solution.resolve() and s1.named_program == "build/fw.json" and s1.program_given
    assert s2.program == solution.resolve() and s2.named_program is None and s2.program_given


def test_without_a_program_of_its_name_a_switch_runs_the_source_of_what_it_names(tmp_path):
    """--program basic.p4 (another name): s1 runs fw.p4 from the exercise, s2 basic.p4, as the
    tutorials' Makefile runs s1 with build/fw.json and the others with DEFAULT_PROG."""
    topo = exercise(tmp_path)
    ex = topo.parents[1]
    spec = load_topology(topo, program=ex / "basic.p4")
    assert spec.switches["s1"].program == (ex / "fw.p4").resolve() and not spec.switches["s1"].program_given
    assert spec.switches["s2"].program == (ex / "basic.p4").resolve() and spec.switches["s2"].program_given


def test_two_programs_one_for_its_name_and_one_for_the_rest(tmp_path):
    """The Makefile's pair: --program solution/fw.p4 --program basic.p4, in either order."""
    topo = exercise(tmp_path)
    ex = topo.parents[1]
    for order in ([ex / "solution" / "fw.p4", ex / "basic.p4"], [ex / "basic.p4", ex / "solution" / "fw.p4"]):
        spec = load_topology(topo, program=order)
        assert spec.switches["s1"].program == (ex / "solution" / "fw.p4").resolve()
        assert spec.switches["s2"].program == (ex / "basic.p4").resolve()


def test_programs_that_cannot_be_placed_are_errors(tmp_path):
    """Two programs of one name; two for the switches that name none; one that runs on no switch."""
    topo = exercise(tmp_path)
    ex = topo.parents[1]
    with pytest.raises(ConfigError, match="are both 'fw'"):
        load_topology(topo, program=[ex / "fw.p4", ex / "solution" / "fw.p4"])
    other = ex / "other.p4"
    other.write_text(ROUTER)
    with pytest.raises(ConfigError, match="only one can run on the switches that name none"):
        load_topology(topo, program=[ex / "basic.p4", other])
    both = exercise(tmp_path / "b")
    data = json.loads(both.read_text())
    data["switches"]["s2"]["program"] = "basic.p4"
    both.write_text(json.dumps(data))
    with pytest.raises(ConfigError, match="--program other.p4 would run on no switch"):
        load_topology(both, program=[other])


def test_a_yaml_switch_program_is_replaced_by_the_program_of_its_name(tmp_path):
    """The same rule in a YAML topology: s1's ``program: fw.p4`` gives way to --program solution/fw.p4."""
    topo = exercise(tmp_path)
    ex = topo.parents[1]
    yml = ex / "t.yaml"
    yml.write_text("name: t\ntopology:\n  nodes:\n    s1: {kind: switch, program: fw.p4}\n"
                   "    s2: {kind: switch, program: basic.p4}\n"
                   "    h1: {kind: host, ip: 10.0.0.1/24}\n"
                   "  links:\n    - endpoints: [\"s1:p1\", \"h1:eth0\"]\n    - endpoints: [\"s1:p2\", \"s2:p2\"]\n")
    spec = load_topology(yml, program=ex / "solution" / "fw.p4")
    assert spec.switches["s1"].program == (ex / "solution" / "fw.p4").resolve()
    assert spec.switches["s1"].program_given and spec.switches["s1"].named_program == "fw.p4"
    assert spec.switches["s2"].program == (ex / "basic.p4").resolve() and not spec.switches["s2"].program_given
