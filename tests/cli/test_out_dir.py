"""``--out DIR`` is checked when the command line is read but made only when the command writes
into it: a command that fails on its other input leaves no empty folder behind, and a folder it
made before failing is removed when nothing was written there; a folder that was there before
the command is never touched."""
from __future__ import annotations

from pathlib import Path

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


def _bad_pcap(tmp_path):
    bad = tmp_path / "bad.pcap"
    bad.write_bytes(b"not a capture at all")
    return bad


def test_run_packet_failing_after_making_its_folder_leaves_none(tmp_path):
    """run-packet made --out (and its parents) before reading the capture: a bad capture left them."""
    out = tmp_path / "new" / "a" / "out"
    r = invoke("run-packet", "ipv4_router", "--pcap", str(_bad_pcap(tmp_path)), "--out", str(out))
    assert r.exit_code == 1 and "cannot read as a pcap file" in r.output
    assert not (tmp_path / "new").exists()


def test_a_folder_that_was_there_is_kept_even_empty(tmp_path):
    out = tmp_path / "there"
    out.mkdir()
    (tmp_path / "keep.txt").write_text("x")
    r = invoke("run-packet", "ipv4_router", "--pcap", str(_bad_pcap(tmp_path)), "--out", str(out))
    assert r.exit_code == 1 and out.is_dir() and (tmp_path / "keep.txt").exists()
    r = invoke("run-packet", "ipv4_router", "--pcap", str(_bad_pcap(tmp_path)), "--out", str(out / "sub"))
    assert r.exit_code == 1 and out.is_dir() and not (out / "sub").exists()


def test_a_folder_with_something_written_in_it_is_kept():
    """Only folders that hold nothing but empty folders go: what a command wrote before failing stays."""
    import tempfile

    import click

    from dataplane.cli.options import OutputDir, remove_unwritten

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        ctx = click.Context(click.Command("x"))
        written, empty = root / "w" / "out", root / "e" / "out"
        OutputDir().convert(str(written), None, ctx)
        OutputDir().convert(str(empty), None, ctx)
        (written / "pcap").mkdir(parents=True)
        (written / "pcap" / "p1.pcap").write_bytes(b"")
        (empty / "pcap").mkdir(parents=True)
        remove_unwritten(ctx)
        assert (written / "pcap" / "p1.pcap").exists()
        assert not (root / "e").exists() and root.is_dir()
