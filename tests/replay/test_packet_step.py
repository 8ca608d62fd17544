"""run-packet on several jobs on the per-packet engine (``dataplane.replay.step``): the
pcaps, summary and counters of one process, byte for byte; what a program may not run apart
keeps it on one job, named."""
from __future__ import annotations

import os

import pytest

from dataplane.control.loader import load_entries
from dataplane.control.switch import Switch
from dataplane.errors import DataplaneError
from dataplane.replay import step as packet_step
from dataplane.replay.run import run_packets
from dataplane.resources import builtin_program

from .conftest import fail_in_workers, program_variant, router_switch, write_capture

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="several jobs need os.fork")


@pytest.fixture(autouse=True)
def small_batches(monkeypatch):
    """Batches of 4 packets: the 63 packets of the capture are 16 batches shared by the jobs."""
    monkeypatch.setattr(packet_step, "PACKET_SPLIT_BATCH", 4)


def _run(sw, capture, out, jobs, engine="packet"):
    said: list[str] = []
    summary = run_packets(sw, 0, pcap=capture, out=out, engine=engine, echo=said.append, verbose=True, jobs=jobs)
    return summary, {p.name: p.read_bytes() for p in sorted(out.iterdir())}, said


@pytest.mark.parametrize("mixed", [False, True], ids=["one length", "mixed lengths"])
def test_a_psa_program_runs_on_two_and_three_jobs_as_on_one(tmp_path, mixed):
    """PSA runs on the per-packet engine only; the capture's drop and three ports come out the
    same from every number of jobs."""
    program = builtin_program("psa_router")
    sw = Switch.from_file(program)
    load_entries(sw, program.with_suffix(".json"))
    capture = tmp_path / "in.pcap"
    n = write_capture(capture, mixed)
    one, files_one, said = _run(sw, capture, tmp_path / "one", 1, engine="auto")
    assert said[1] == "jobs: 1 (as asked)" and one["packets_in"] == n and len(files_one) == 4
    for jobs in (2, 3):
        got, files, said = _run(sw, capture, tmp_path / f"jobs{jobs}", jobs, engine="auto")
        assert said[0].startswith("engine: per-packet engine") and said[1] == f"jobs: {jobs}"
        assert got == one and files == files_one


def test_counters_count_the_same_on_two_jobs(tmp_path):
    """An indexed counter and a direct counter: the workers' additions reach the parent's switch."""
    program = program_variant(
        tmp_path, "counted",
        ("    action drop() {", "    counter(16, CounterType.packets_and_bytes) seen;\n"
                              "    direct_counter(CounterType.packets_and_bytes) lpm_hits;\n"
                              "    action drop() {"),
        ("        default_action = drop();", "        default_action = drop();\n        counters = lpm_hits;"),
        ("            ipv4_lpm.apply();", "            ipv4_lpm.apply();\n"
                                         "            seen.count((bit<32>)standard_metadata.egress_spec);"))
    capture = tmp_path / "in.pcap"
    write_capture(capture, True)
    counted = {}
    for jobs in (1, 2):
        sw = router_switch(program)
        summary, files, said = _run(sw, capture, tmp_path / f"jobs{jobs}", jobs)
        assert said[1].startswith(f"jobs: {jobs}")
        cells = [sw.counter_read("MyIngress.seen", i) for i in range(16)]
        entries = [(e.packets, e.bytes) for e in sw.table_entries("MyIngress.ipv4_lpm")]
        counted[jobs] = (summary, files, cells, entries)
    assert counted[1] == counted[2]
    summary, _, cells, _ = counted[2]
    assert sum(p for p, _ in cells[1:4]) == summary["packets_in"] - summary["drops"]


@pytest.mark.parametrize("edits, named", [
    ((("    action drop() {", "    meter(4, MeterType.packets) m;\n    action drop() {"),
      ("            ipv4_lpm.apply();", "            ipv4_lpm.apply();\n"
                                       "            bit<2> c; m.execute_meter((bit<32>)0, c);")), "Meter MyIngress.m"),
    ((("            ipv4_lpm.apply();", "            ipv4_lpm.apply();\n"
                                       "            bit<8> r; random(r, 0, 7); hdr.ipv4.diffserv = r;"),), "random()"),
    ((("            ipv4_lpm.apply();", '            ipv4_lpm.apply();\n            log_msg("seen");'),), "log_msg()"),
], ids=["meter", "random", "log_msg"])
def test_order_dependent_state_keeps_the_program_on_one_job_and_is_named(tmp_path, edits, named):
    program = program_variant(tmp_path, "stateful", *edits)
    capture = tmp_path / "in.pcap"
    write_capture(capture, False)
    _, _, said = _run(router_switch(program), capture, tmp_path / "out", 2)
    assert said[1].startswith("jobs: 1 (the program keeps state across packets in order (") and named in said[1]


def test_a_failing_worker_fails_the_run_with_its_error(tmp_path, monkeypatch):
    capture = tmp_path / "in.pcap"
    write_capture(capture, False)
    fail_in_workers(monkeypatch, packet_step.PacketStep)
    with pytest.raises(DataplaneError, match="boom in the worker"):
        _run(router_switch(builtin_program("ipv4_router")), capture, tmp_path / "out", 2)
