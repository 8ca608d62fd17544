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
