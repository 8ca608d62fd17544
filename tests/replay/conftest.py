"""Helpers of the run-packet tests: a small capture, the router's switch and variants of its program."""
from __future__ import annotations

import os

from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from dataplane.control.loader import load_entries
from dataplane.control.switch import Switch
from dataplane.errors import DataplaneError
from dataplane.pcap import PcapWriter
from dataplane.resources import builtin_program


def write_capture(path, mixed: bool) -> int:
    """Ports 1, 2, 3 and a drop interleaved; mixed lengths when ``mixed`` (records laid out
    again in the workers), else one length (records copied in place)."""
    dsts = ["10.0.1.1", "10.0.2.2", "10.0.3.3", "11.0.0.1", "10.0.2.2", "10.0.1.1", "10.0.3.3"] * 9
    with PcapWriter(path) as w:
        for i, dst in enumerate(dsts):
            frame = Ether(dst="00:00:00:00:00:02", src="00:00:00:00:00:01") / IP(src="192.0.2.1", dst=dst) \
                / UDP(sport=1000 + i, dport=2000) / (bytes([i]) * (i % 5 if mixed else 4))
            w.write(bytes(frame), 1_000_000_007 * i)
    return len(dsts)


def router_switch(program):
    """A switch of ``program`` with the built-in router's entries."""
    sw = Switch.from_file(program)
    load_entries(sw, builtin_program("ipv4_router").with_suffix(".json"))
    return sw


def program_variant(tmp_path, name: str, *edits: tuple[str, str]):
    """The built-in router's program with each ``(old, new)`` text replaced, as ``NAME.p4``."""
    source = builtin_program("ipv4_router").read_text()
    for old, new in edits:
        assert old in source
        source = source.replace(old, new, 1)
    program = tmp_path / f"{name}.p4"
    program.write_text(source)
    return program


def fail_in_workers(monkeypatch, step_class) -> None:
    """``step_class``'s batches raise "boom in the worker" in every process but this one."""
    parent = os.getpid()
    real = step_class.__call__

    def step(self, batch, writer):
        if os.getpid() != parent:
            raise DataplaneError("boom in the worker")
        return real(self, batch, writer)

    monkeypatch.setattr(step_class, "__call__", step)
