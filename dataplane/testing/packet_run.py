"""``dataplane run-packet``: packets from hex or a pcap through one switch, outputs shown or written.

Pcaps stream: packets are read, processed and written one at a time, so a capture of
any size runs in constant memory.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from dataplane.control.switch import Switch
from dataplane.engine.trace import Trace
from dataplane.errors import DataplaneError


def _hex_packet(text: str) -> bytes:
    cleaned = "".join(text.split()).removeprefix("0x")
    try:
        return bytes.fromhex(cleaned)
    except ValueError:
        raise DataplaneError(f"--packet: {text!r} is not an even number of hex digits") from None


def _pcap_packets(path: Path) -> list[bytes]:
    """Every packet of a pcap or pcapng file; a truncated packet or a file with none is an error.

    scapy only warns about a packet cut short by the end of the file and hands back what is
    there, so the lengths are checked here: sending half a packet would be silent nonsense.
    """
    from scapy.utils import RawPcapReader

    packets = []
    try:
        with RawPcapReader(str(path)) as reader:
            for data, meta in reader:
                caplen = getattr(meta, "caplen", None)   # pcap records; pcapng's are checked by scapy
                if caplen is not None and len(data) < caplen:
                    raise DataplaneError(f"{path}: packet {len(packets) + 1} is truncated "
                                         f"({len(data)} of {caplen} bytes): the file ends early")
                packets.append(data)
    except DataplaneError:
        raise
    except Exception as err:  # OSError, EOFError, ValueError and scapy's Scapy_Exception (a plain Exception)
        raise DataplaneError(f"{path}: cannot read as a pcap file ({err})") from None
    if not packets:
        raise DataplaneError(f"{path}: the capture holds no packets")
    return packets


def run_packets(sw: Switch, port: int, *, packet_hex: str | None = None, pcap: Path | None = None,
                out: Path | None = None, trace: bool = False, echo: Callable[[str], None] = print) -> dict:
    """Process the packets; print each output (or write pcaps to ``out``); return the summary."""
    packets = [_hex_packet(packet_hex)] if packet_hex is not None else _pcap_packets(pcap)
    writers = {}
    summary = {"packets_in": 0, "packets_out": {}, "drops": 0}
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    try:
        for i, data in enumerate(packets):
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
                    _writer(writers, out, o.port).write(o.data)
                elif not trace:
                    echo(f"packet {i}: out port {o.port}: {o.data.hex()}")
            if out is None and not trace and not result.outputs:
                echo(f"packet {i}: dropped ({'; '.join(result.drops) or 'no output'})")
    finally:
        for w in writers.values():
            w.close()
    if out is not None:
        (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
        echo(f"{summary['packets_in']} packet(s) in; out: " +
             (", ".join(f"port {p}: {n}" for p, n in sorted(summary["packets_out"].items(), key=lambda x: int(x[0])))
              or "none") + f"; {summary['drops']} dropped; pcaps in {out}")
    return summary


def _writer(writers: dict, out: Path, port: int):
    from scapy.utils import RawPcapWriter

    w = writers.get(port)
    if w is None:
        w = writers[port] = RawPcapWriter(str(out / f"port{port}.pcap"), linktype=1, sync=False)
    return w
