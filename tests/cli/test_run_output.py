"""What `dataplane run` prints, and the help every command gives: numbers that cannot be misread."""
from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from dataplane.cli import main
from dataplane.resources import data_dir

SERVED = Path(__file__).parents[1] / "net" / "data" / "served" / "topology.json"


def _commands():
    """Every command of the tree, with its path (scenario subcommands are loaded on demand)."""
    out = []

    def walk(cmd: click.Command, path: list[str], ctx: click.Context) -> None:
        out.append((" ".join(path), cmd))
        if isinstance(cmd, click.Group):
            for name in cmd.list_commands(ctx):
                sub = cmd.get_command(ctx, name)
                walk(sub, [*path, name], click.Context(sub, parent=ctx, info_name=name))

    walk(main, ["dataplane"], click.Context(main, info_name="dataplane"))
    return out


def test_every_option_has_help_text():
    commands = _commands()
    assert len(commands) > 10 and any(p == "dataplane scenario allreduce" for p, _ in commands)
    bare = [f"{path} {'/'.join(p.opts)}" for path, cmd in commands for p in cmd.params
            if isinstance(p, click.Option) and not p.hidden and not (p.help or "").strip()]
    assert bare == []


@pytest.mark.parametrize("path", [p for p, _ in _commands()])
def test_dash_h_is_help(path):
    args = path.split()[1:]
    short = CliRunner().invoke(main, [*args, "-h"])
    assert short.exit_code == 0, short.output
    assert short.output == CliRunner().invoke(main, [*args, "--help"]).output


def test_run_help_defines_the_columns():
    out = CliRunner().invoke(main, ["run", "--help"], terminal_width=200).output
    for words in ('"delivered"', '"received" the IP packets that arrived at the host', '"drops" are packets',
                  '"lost" packets lost on', "counts packets unless a column says bytes"):
        assert words in " ".join(out.split()), words


def test_incast_receiver_counts_what_it_received():
    res = CliRunner().invoke(main, ["run", "--traffic", "incast"])
    assert res.exit_code == 0, res.output
    rows = {line.split()[0]: line.split()[1:] for line in res.output.splitlines() if line[:1] == "h"
            and len(line.split()) == 5}
    sent = sum(int(rows[h][0]) for h in ("h1", "h2", "h3"))
    assert sent > 0 and rows["h4"] == ["0", "0", "0", str(sent)]      # the last host is the incast's receiver
    assert "topology leaf-spine: 4 switches, 4 hosts, 8 links" in res.output
    assert "... 4 more ports not shown" in res.output
    assert "switches dropped no packets" in res.output


def test_program_drops_in_the_summary():
    # The served topology's switches run ipv4_router without entries: the program drops every ping.
    res = CliRunner().invoke(main, ["run", str(SERVED), "--program", str(data_dir("programs") / "ipv4_router.p4"),
                                    "--duration", "2ms"])
    assert res.exit_code == 0, res.output
    assert "switch s1 dropped: dropped in ingress (egress_spec = 511): 1" in res.output
    assert "2 switches, 2 hosts, 3 links" in res.output


def test_one_switch_is_singular():
    res = CliRunner().invoke(main, ["run", "basic", "--duration", "1ms"])
    assert res.exit_code == 0, res.output
    assert res.output.splitlines()[1].startswith("topology basic: 1 switch, 3 hosts, 3 links;"), res.output


def test_config_file_errors_have_one_error_prefix(tmp_path):
    bad = tmp_path / "traffic.yaml"
    bad.write_text("{app: ping}\n")
    res = CliRunner().invoke(main, ["run", "--traffic", str(bad)])     # output holds stderr too
    assert res.exit_code == 1
    assert f"{bad}:1: error: a traffic file is a list of apps" in res.output
    assert res.output.count("error:") == 1, res.output


def test_error_message_prefixes_only_unlocated_errors():
    from dataplane.cli.errors import error_message
    from dataplane.control.config_errors import ConfigError
    from dataplane.errors import DataplaneError

    assert error_message(ConfigError("bad", "t.yaml", 3)) == "t.yaml:3: error: bad"
    assert error_message(DataplaneError("no such host h9")) == "error: no such host h9"


def test_unknown_traffic_lists_the_built_in_patterns():
    res = CliRunner().invoke(main, ["run", "--traffic", "pingal"])
    assert res.exit_code == 2
    assert "'pingal' is neither a traffic file nor a built-in pattern (pingall, pingall-parallel, incast, all-to-all)" in res.output
