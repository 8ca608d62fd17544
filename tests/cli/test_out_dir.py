"""``--out DIR`` is checked when the command line is read but made only when the command writes
into it: a command that fails on its other input leaves no empty folder behind."""
from __future__ import annotations

from click.testing import CliRunner

from dataplane.cli import main


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def test_run_failing_on_its_traffic_makes_no_out_folder(tmp_path):
    out = tmp_path / "new" / "out"
    r = invoke("run", "--out", str(out), "--traffic", str(tmp_path / "nosuch.yaml"))
    assert r.exit_code != 0 and "neither a traffic file nor a built-in pattern" in r.output
    assert not (tmp_path / "new").exists()


def test_run_failing_on_its_topology_makes_no_out_folder(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("topology: {nodes: [\n")
    r = invoke("run", str(bad), "--out", str(tmp_path / "out"))
    assert r.exit_code == 1 and "bad.yaml:" in r.output
    assert not (tmp_path / "out").exists()


def test_scenario_failing_on_an_option_makes_no_out_folder(tmp_path):
    r = invoke("scenario", "incast", "--out", str(tmp_path / "out"), "--transfer", "lots")
    assert r.exit_code == 2
    assert not (tmp_path / "out").exists()


def test_a_command_that_succeeds_makes_the_folder_with_its_parents(tmp_path):
    out = tmp_path / "a" / "b"
    r = invoke("run-packet", "ipv4_router", "--packet", "00" * 60, "--out", str(out))
    assert r.exit_code == 0, r.output
    assert (out / "summary.json").is_file()


def test_out_under_a_file_is_refused_at_once(tmp_path):
    (tmp_path / "file").write_text("")
    r = invoke("run", "--out", str(tmp_path / "file" / "sub" / "deeper"))
    assert r.exit_code == 2 and "is not a folder" in r.output
