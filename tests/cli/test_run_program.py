"""``dataplane run TOPO --program P``: P runs on the switches TOPO leaves without a program, and
is refused, not silently ignored, when every switch names its own."""
from __future__ import annotations

from click.testing import CliRunner

from dataplane.cli import main
from dataplane.resources import builtin_program


def test_program_for_a_topology_that_names_every_program_is_an_error():
    r = CliRunner().invoke(main, ["run", "--program", str(builtin_program("ipv4_router"))])
    assert r.exit_code == 1
    line = r.output.strip()
    assert "\n" not in line and "leaf-spine.yaml:" in line and ": error: --program ipv4_router.p4 would run on no switch" in line


def test_program_fills_in_a_switch_without_one(tmp_path):
    topo = tmp_path / "t.yaml"
    topo.write_text("name: t\ntopology:\n  nodes:\n    s1: {kind: switch}\n"
                    "    h1: {kind: host, ip: 10.0.0.1/24}\n    h2: {kind: host, ip: 10.0.0.2/24}\n"
                    "  links:\n    - endpoints: [\"s1:p1\", \"h1:eth0\"]\n    - endpoints: [\"s1:p2\", \"h2:eth0\"]\n")
    r = CliRunner().invoke(main, ["run", str(topo), "--program", str(builtin_program("ipv4_router")),
                                  "--duration", "1ms", "--json"])
    assert r.exit_code == 0, r.output


def _firewall_like(tmp_path):
    """tests/net/data/tutorial as the firewall exercise lays it out: s1 names build/fw.json, the
    unfinished fw.p4 (drops everything) beside the topology, the working one in solution/."""
    import json
    import shutil
    from pathlib import Path

    data = Path(__file__).parents[1] / "net" / "data" / "tutorial"
    ex = tmp_path / "fw"
    (ex / "solution").mkdir(parents=True)
    for name in ("s1-runtime.json", "s2-runtime.json"):
        shutil.copy(data / name, ex / name)
    topo = json.loads((data / "topology.json").read_text())
    topo["switches"]["s1"]["program"] = "build/fw.json"
    (ex / "topology.json").write_text(json.dumps(topo))
    router = builtin_program("ipv4_router").read_text()
    (ex / "fw.p4").write_text(router.replace("ipv4_lpm.apply();", "mark_to_drop(standard_metadata);"))
    (ex / "solution" / "fw.p4").write_text(router)
    return ex


def test_program_replaces_the_program_a_switch_names_and_the_run_says_which_runs_where(tmp_path, monkeypatch):
    """--program solution/fw.p4 runs on s1, whose topology names build/fw.json (not on the unfinished
    fw.p4 beside it: the pings get through), and on s2, which names none; the run says so first."""
    import json

    ex = _firewall_like(tmp_path)
    monkeypatch.chdir(ex)
    args = ["run", "topology.json", "--program", "solution/fw.p4", "--duration", "2ms"]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[:2] == ["s1: solution/fw.p4 (--program, for the topology's build/fw.json)",
                         "s2: solution/fw.p4 (--program; the topology names none)"]
    r = CliRunner().invoke(main, [*args, "--json"])
    data = json.loads(r.output)
    assert data["programs"] == {"s1": {"program": "solution/fw.p4", "named": "build/fw.json", "given": True},
                                "s2": {"program": "solution/fw.p4", "named": None, "given": True}}
    assert {h: v["delivered"] for h, v in data["hosts"].items()} == {"h1": 1, "h2": 1}


def test_a_switch_that_names_another_program_runs_that_one_and_the_run_says_so(tmp_path, monkeypatch):
    """--program for another name leaves s1 on the fw.p4 it names, and the run says so."""
    ex = _firewall_like(tmp_path)
    (ex / "basic.p4").write_text(builtin_program("ipv4_router").read_text())
    monkeypatch.chdir(ex)
    r = CliRunner().invoke(main, ["run", "topology.json", "--program", "basic.p4", "--duration", "2ms"])
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[:2] == ["s1: fw.p4 (the topology names build/fw.json)",
                                         "s2: basic.p4 (--program; the topology names none)"]
