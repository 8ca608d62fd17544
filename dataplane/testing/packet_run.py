"""``dataplane run-packet``: packets from hex or a pcap through one switch, outputs shown or written.

Pcaps stream: packets are read, processed and written one at a time (dataplane.pcap, no
scapy), so a capture of any size runs in constant memory. Each output packet carries its
input packet's timestamp, in a nanosecond pcap.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Iterable

from dataplane.control.switch import Switch
from dataplane.engine.trace import Trace
from dataplane.errors import DataplaneError
from dataplane.pcap import PcapWriter, iter_packets


def _hex_packet(text: str) -> bytes:
    cleaned = "".join(text.split()).removeprefix("0x")
    try:
        return bytes.fromhex(cleaned)
    except ValueError:
        raise DataplaneError(f"--packet: {text!r} is not an even number of hex digits") from None


def run_packets(sw: Switch, port: int, *, packet_hex: str | None = None, pcap: Path | None = None,
                out: Path | None = None, trace: bool = False, echo: Callable[[str], None] = print) -> dict:
    """Process the packets; print each output (or write pcaps to ``out``); return the summary."""
    packets = [(0, _hex_packet(packet_hex))] if packet_hex is not None else iter_packets(pcap)
    if out is not None and not trace:
        summary = _run_to_pcaps(sw, port, packets, out)
    else:
        summary = _run_shown(sw, port, packets, out, trace, echo)
    if out is not None:
        (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
        echo(f"{summary['packets_in']} packet(s) in; out: " +
             (", ".join(f"port {p}: {n}" for p, n in sorted(summary["packets_out"].items(), key=lambda x: int(x[0])))
              or "none") + f"; {summary['drops']} dropped; pcaps in {out}")
    return summary


def _run_to_pcaps(sw: Switch, port: int, packets: Iterable[tuple[int, bytes]], out: Path) -> dict:
    """The replay loop: nothing printed, each output appended to its port's pcap."""
    out.mkdir(parents=True, exist_ok=True)
    writers: dict[int, PcapWriter] = {}
    packets_in = drops = 0
    process = sw.process
    try:
        for time_ns, data in packets:
            result = process(port, data)
            packets_in += 1
            if result.drops:
                drops += len(result.drops)
            for o in result.outputs:
                w = writers.get(o.port)
                if w is None:
                    w = writers[o.port] = PcapWriter(out / f"port{o.port}.pcap")
                w.write(o.data, time_ns)
    finally:
        for w in writers.values():
            w.close()
    return {"packets_in": packets_in, "packets_out": {str(p): w.count for p, w in writers.items()}, "drops": drops}


def _run_shown(sw: Switch, port: int, packets: Iterable[tuple[int, bytes]], out: Path | None, trace: bool,
               echo: Callable[[str], None]) -> dict:
    """Packets with their traces or outputs printed (and written to ``out`` if given)."""
    writers: dict[int, PcapWriter] = {}
    summary = {"packets_in": 0, "packets_out": {}, "drops": 0}
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    try:
        for i, (time_ns, data) in enumerate(packets):
            tr = Trace(sw.program.errors) if trace else None
            result = sw.process(port, data, tr)
            summary["packets_in"] += 1
            summary["drops"] += len(result.drops)
            if tr is not None:
                echo(str(tr))
            for o in result.outputs:
                key = str(o.port)
                summary["packets_out"][key] = summary["packets_out"].get(key, 0) + 1
                if out is not None:
                    w = writers.get(o.port)
                    if w is None:
                        w = writers[o.port] = PcapWriter(out / f"port{o.port}.pcap")
                    w.write(o.data, time_ns)
                elif not trace:
                    echo(f"packet {i}: out port {o.port}: {o.data.hex()}")
            if out is None and not trace and not result.outputs:
                echo(f"packet {i}: dropped ({'; '.join(result.drops) or 'no output'})")
    finally:
        for w in writers.values():
            w.close()
    return summary
