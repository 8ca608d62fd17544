"""run-packet on several jobs (forked workers, ``dataplane.replay.jobs``): the same pcaps
and summary as one process, byte for byte; a program with counters stays on one job and says why."""
from __future__ import annotations

import os
import sys

import pytest

from dataplane.replay import run as packet_run
from dataplane.replay.run import run_packets
from dataplane.resources import builtin_program

from .conftest import fail_in_workers, program_variant, router_switch, write_capture

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="several jobs need os.fork")


@pytest.fixture(scope="module")
def router():
    """One switch for every run: the router keeps nothing from one packet to the next."""
    return router_switch(builtin_program("ipv4_router"))


def _run(sw, capture, out, jobs):
    said: list[str] = []
    summary = run_packets(sw, 0, pcap=capture, out=out, engine="batch", echo=said.append, verbose=True, jobs=jobs)
    files = {p.name: p.read_bytes() for p in sorted(out.iterdir())}
    return summary, files, said, sw


@pytest.mark.parametrize("mixed", [False, True], ids=["one length", "mixed lengths"])
def test_two_and_three_jobs_write_the_pcaps_one_job_writes(tmp_path, monkeypatch, mixed, router):
    """Batches of 4 packets, so the 63 packets are 16 batches shared between the jobs (mixed
    lengths are read from the file as they go, 512 bytes at a time here)."""
    from dataplane.pcap import batch

    monkeypatch.setattr(packet_run, "SPLIT_BATCH", 4)
    monkeypatch.setattr(batch, "_WALK_CHUNK", 64)
    capture = tmp_path / "in.pcap"
    n = write_capture(capture, mixed)
    one, files_one, said, _ = _run(router, capture, tmp_path / "one", 1)
    assert "jobs: 1 (as asked)" in said
    assert one["packets_in"] == n and one["drops"] == 9 and len(files_one) == 4     # 3 pcaps + summary.json
    for jobs in (2, 3):
        got, files, said, _ = _run(router, capture, tmp_path / f"jobs{jobs}", jobs)
        assert f"jobs: {jobs}" in said
        assert got == one and files == files_one


def test_a_pcapng_capture_read_in_small_chunks_gives_the_same_pcaps(tmp_path, monkeypatch, router):
    """pcapng is read with ``read`` calls as it goes (a chunk of 64 bytes here): the worker's
    reads and the parent's must not move each other's place in the file."""
    from scapy.utils import rdpcap, wrpcapng

    from dataplane.pcap import stream

    monkeypatch.setattr(packet_run, "SPLIT_BATCH", 4)
    monkeypatch.setattr(stream, "CHUNK", 64)
    classic = tmp_path / "in.pcap"
    write_capture(classic, True)
    capture = tmp_path / "in.pcapng"
    wrpcapng(str(capture), rdpcap(str(classic)))
    one, files_one, _, _ = _run(router, capture, tmp_path / "one", 1)
    two, files_two, said, _ = _run(router, capture, tmp_path / "two", 2)
    assert "jobs: 2" in said and one["packets_in"] == 63
    assert two == one and files_two == files_one


def test_counters_come_out_the_same_counted_by_two_jobs(tmp_path, monkeypatch):
    """An indexed counter (a cell per egress port) and a direct counter on the LPM table: each
    worker's additions are added to the parent's, cell by cell and entry by entry."""
    monkeypatch.setattr(packet_run, "SPLIT_BATCH", 4)
    capture = tmp_path / "in.pcap"
    write_capture(capture, True)
    program = program_variant(tmp_path, "counted",
                       ("    action drop() {", "    counter(16, CounterType.packets_and_bytes) seen;\n"
                                             "    direct_counter(CounterType.packets_and_bytes) lpm_hits;\n"
                                             "    action drop() {"),
                       ("        default_action = drop();", "        default_action = drop();\n"
                                                           "        counters = lpm_hits;"),
                       ("            ipv4_lpm.apply();", "            ipv4_lpm.apply();\n"
                                                       "            seen.count((bit<32>)standard_metadata.egress_spec);"))
    counted = {}
    for jobs in (1, 2):
        sw = router_switch(program)
        summary, files, said, _ = _run(sw, capture, tmp_path / f"jobs{jobs}", jobs)
        assert f"jobs: {jobs}" in said[1]
        cells = [sw.counter_read("MyIngress.seen", i) for i in range(16)]
        entries = [(e.packets, e.bytes) for e in sw.table_entries("MyIngress.ipv4_lpm")]
        counted[jobs] = (summary, files, cells, entries)
    assert counted[1] == counted[2]
    summary, _, cells, entries = counted[2]
    forwarded = summary["packets_in"] - summary["drops"]
    assert sum(p for p, _ in cells[1:4]) == forwarded == sum(p for p, _ in entries) and cells[2][1] > 0


def test_a_program_with_a_register_runs_on_one_job_and_says_why(tmp_path):
    """Registers depend on packet order: the batch engine refuses the program, and the
    per-packet engine it falls back to runs it on one job."""
    capture = tmp_path / "in.pcap"
    write_capture(capture, False)
    program = program_variant(tmp_path, "remembers",
                       ("    action drop() {", "    register<bit<32>>(1) last;\n    action drop() {"),
                       ("            ipv4_lpm.apply();", "            ipv4_lpm.apply();\n"
                                                       "            last.write(0, hdr.ipv4.dstAddr);"))
    sw = router_switch(program)
    said: list[str] = []
    run_packets(sw, 0, pcap=capture, out=tmp_path / "out", echo=said.append, verbose=True, jobs=2)
    assert said[0].startswith("engine: per-packet engine (")
    assert "Register" in said[0] or sys.implementation.name != "cpython"    # (PyPy: per packet anyway)
    assert said[1] == "jobs: 1 (the program keeps state across packets in order (Register MyIngress.last))"


def test_a_worker_that_fails_fails_the_run_with_its_error(tmp_path, monkeypatch, router):
    """The worker's exception reaches the parent (no hang, no traceback of a lost process)."""
    from dataplane.errors import DataplaneError
    from dataplane.replay import jobs as packet_jobs

    monkeypatch.setattr(packet_run, "SPLIT_BATCH", 4)
    capture = tmp_path / "in.pcap"
    write_capture(capture, False)
    fail_in_workers(monkeypatch, packet_jobs.BatchStep)
    with pytest.raises(DataplaneError, match="boom in the worker"):
        _run(router, capture, tmp_path / "out", 2)
