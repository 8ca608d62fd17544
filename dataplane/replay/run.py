"""``dataplane run-packet``: packets from hex or a pcap through one switch, outputs shown or written.

Pcaps stream: packets are read, processed and written one at a time (dataplane.pcap, no
scapy), or on the batch engine a batch of arrays at a time, so a capture of any size runs in
constant memory. Each output packet carries its
input packet's timestamp, in a nanosecond pcap.
"""
from __future__ import annotations

import json
from itertools import chain, islice
from pathlib import Path
from typing import Callable, Iterable

from dataplane import progress
from dataplane.control.switch import Switch
from dataplane.engine.trace import Trace
from dataplane.errors import DataplaneError, shown
from dataplane.pcap import PcapWriter, iter_packets


def _hex_packet(text: str) -> bytes:
    cleaned = "".join(text.split()).removeprefix("0x")
    try:
        return bytes.fromhex(cleaned)
    except ValueError:
        raise DataplaneError(f"--packet: {text!r} is not an even number of hex digits") from None


def run_packets(sw: Switch, port: int, *, packet_hex: str | None = None, pcap: Path | None = None,
                out: Path | None = None, trace: bool = False, echo: Callable[[str], None] = print,
                engine: str = "auto", verbose: bool = False, jobs: int | None = None) -> dict:
    """Process the packets; print each output (or write pcaps to ``out``); return the summary.

    ``engine``: ``auto`` runs the batch engine when it accepts the program (and no trace is
    asked for), else the per-packet engine; ``batch`` fails with the batch engine's reason;
    ``packet`` is the per-packet engine. ``verbose`` (or ``trace``) says which ran and why.

    ``jobs``: processes that run a capture replayed to pcaps, on either engine (None: up to 2,
    as the CPUs allow; see ``jobs`` and ``step``); the files and counters are
    the same with any number. ``verbose`` says how many ran and, when one, why.
    """
    from dataplane.engine.batch.select import choose

    if not 0 <= port < sw.dp.port_limit:
        # (the batch engine lays ports out in a fixed-width array: a wider one would be cut, not refused)
        raise DataplaneError(f"--port {shown(port)} is out of range: this architecture's ports are "
                             f"0..{sw.dp.port_limit - 1}")
    if trace and engine == "batch":
        raise DataplaneError("--trace follows packets through the per-packet engine; "
                             "use --engine auto or packet with it")
    pipeline, why = choose(sw.dp, "packet" if trace else engine)
    if trace and engine == "auto":
        why = "per-packet engine (--trace follows one packet at a time)"
    if verbose or trace:
        echo(f"engine: {why}")
    if jobs is not None and jobs < 1:
        raise DataplaneError(f"--jobs: {jobs} is not a number of processes (1 or more)")
    note = echo if verbose or trace else lambda _: None
    if pipeline is not None and pcap is not None and out is not None:
        summary = _run_batches_to_pcaps(pipeline, port, pcap, out, jobs, note)
    elif pipeline is None and pcap is not None and out is not None and not trace and _packet_jobs(sw, jobs, note) > 1:
        summary = _run_packets_split(sw, port, pcap, out, jobs, note)
    else:
        if verbose and jobs is not None and jobs > 1 and (pipeline is not None or trace or pcap is None or out is None):
            echo("jobs: 1 (" + ("--trace follows one packet at a time" if trace else
                                "several jobs run a capture replayed to pcaps, --pcap with --out") + ")")
        summary = _run_one_process(sw, pipeline, port, packet_hex, pcap, out, trace, echo)
    if out is not None:
        (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
        echo(f"{summary['packets_in']} packet(s) in; out: " +
             (", ".join(f"port {p}: {n}" for p, n in sorted(summary["packets_out"].items(), key=lambda x: int(x[0])))
              or "none") + f"; {summary['drops']} dropped; pcaps in {out}")
    return summary


def _run_one_process(sw: Switch, pipeline, port: int, packet_hex: str | None, pcap: Path | None,
                     out: Path | None, trace: bool, echo: Callable[[str], None]) -> dict:
    """Every other case than a capture to pcaps on the batch engine: packets one at a time."""
    if pipeline is not None:
        packets = [(0, _hex_packet(packet_hex))] if packet_hex is not None else iter_packets(pcap)
        summary = _run_batches_shown(pipeline, port, packets, out, echo)
    else:
        packets = [(0, _hex_packet(packet_hex))] if packet_hex is not None else iter_packets(pcap)
        line = progress.active()
        if line is not None and pcap is not None:      # on a terminal only: the loops below stay as they are
            packets = _reading(packets, pcap, line)
        if out is not None and not trace:
            summary = _run_to_pcaps(sw, port, packets, out)
        else:
            summary = _run_shown(sw, port, packets, out, trace, echo)
    return summary


def _run_batches_to_pcaps(pipeline, port: int, pcap: Path, out: Path, jobs: int | None,
                          note: Callable[[str], None]) -> dict:
    """The replay loop on the batch engine: the capture read as arrays, a batch at a time, run,
    and each port's outputs appended to its pcap in bulk, stamped with their inputs' times.
    No Python object per packet on the way: per batch, the outputs' records are laid out in
    one array (when they share a length, the usual case), put in port order with one stable
    sort and written a slice per port (``jobs.BatchStep``). On several jobs, batches
    run in forked workers and the files are the same (``jobs.run_split``)."""
    from dataplane.pcap.batch import iter_batches
    from dataplane.replay.jobs import BatchStep, plan_jobs

    return _replay(BatchStep(pipeline, port), lambda reader: iter_batches(reader, SPLIT_BATCH),
                   lambda: plan_jobs(pipeline.dp, jobs), pcap, out, note)


def _packet_jobs(sw: Switch, jobs: int | None, note: Callable[[str], None]) -> int:
    """How many jobs replay a capture on the per-packet engine; when one, ``note`` says why."""
    from dataplane.replay.jobs import plan_jobs
    from dataplane.replay.step import per_packet_state

    n_jobs, why = plan_jobs(sw.dp, jobs, per_packet_state)
    if n_jobs == 1:
        note(f"jobs: 1 ({why})")
    return n_jobs


def _run_packets_split(sw: Switch, port: int, pcap: Path, out: Path, jobs: int | None,
                       note: Callable[[str], None]) -> dict:
    """The replay on the per-packet engine, on several jobs: the capture's batches shared out,
    each run a packet at a time (``step``), the files as ``_run_to_pcaps`` writes them."""
    from dataplane.pcap.batch import iter_batches
    from dataplane.replay.jobs import plan_jobs
    from dataplane.replay.step import PACKET_SPLIT_BATCH, PacketStep, per_packet_state

    return _replay(PacketStep(sw, port), lambda reader: iter_batches(reader, PACKET_SPLIT_BATCH),
                   lambda: plan_jobs(sw.dp, jobs, per_packet_state), pcap, out, note, warm=True)


def _replay(step, batches_of: Callable, plan: Callable[[], tuple[int, str]], pcap: Path, out: Path,
            note: Callable[[str], None], warm: bool = False) -> dict:
    """A capture replayed to a pcap per port by ``step``, a batch at a time (``batches_of(reader)``:
    ``pcap.batch`` arrays), on as many jobs as ``plan()`` says (``jobs.run_split``, with
    ``warm``)."""
    from dataplane.pcap import CaptureReader
    from dataplane.replay.jobs import own_offset, run_split

    out.mkdir(parents=True, exist_ok=True)
    writers: dict[int, PcapWriter] = {}

    def writer(p: int) -> PcapWriter:
        w = writers.get(p)
        if w is None:
            w = writers[p] = PcapWriter(out / f"port{p}.pcap")
        return w

    line = progress.active()
    if line is not None:     # how far into the file, as _reading counts it (once per batch here)
        line.stage(f"run-packet {pcap.name}", pcap.stat().st_size, "B")
    done = [24]

    def seen(batch) -> None:
        if line is not None:
            done[0] += 16 * len(batch) + int(batch.lengths.sum())
            line.done = done[0]

    packets_in = drops = 0
    reader = None
    try:
        reader = CaptureReader(pcap)
        batches = batches_of(reader)
        n_jobs, why = plan()
        if n_jobs > 1:   # a capture of one batch runs where it is
            ahead = list(islice(batches, 2))
            if len(ahead) < 2:
                n_jobs, why = 1, "the capture is one batch"
            batches = chain(ahead, batches)
        note(f"jobs: {n_jobs}" + (f" ({why})" if n_jobs == 1 else ""))
        if n_jobs > 1:
            packets_in, drops = run_split(step, batches, writer, n_jobs, seen, own_offset(reader._f, reader.path), warm)
        else:
            for batch in batches:
                seen(batch)
                packets_in += len(batch)
                drops += step(batch, writer)
    finally:
        if reader is not None:
            reader.close()
        for w in writers.values():
            w.close()
    if packets_in == 0:
        raise DataplaneError(f"{pcap}: the capture holds no packets")
    return {"packets_in": packets_in, "packets_out": {str(p): w.count for p, w in writers.items()}, "drops": drops}


BATCH_SIZE = 1 << 16   # packets per batch when packets come one at a time (shown outputs)
SPLIT_BATCH = 1 << 16  # packets per batch of a capture replayed to pcaps: the unit a job takes (32,768 balanced two jobs better but cost more page faults than it saved)


def _run_batches_shown(pipeline, port: int, packets: Iterable[tuple[int, bytes]], out: Path | None,
                       echo: Callable[[str], None]) -> dict:
    """``_run_shown`` on the batch engine: the same lines, the same summary, the same pcaps."""
    from itertools import islice

    from dataplane.engine.batch.layout import PacketBatch
    from dataplane.engine.batch.v1model import DROP_REASONS

    writers: dict[int, PcapWriter] = {}
    summary: dict = {"packets_in": 0, "packets_out": {}, "drops": 0}
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    it = iter(packets)
    start = 0
    try:
        while True:
            chunk = list(islice(it, BATCH_SIZE))
            if not chunk:
                break
            res = pipeline.run(PacketBatch.from_packets([d for _, d in chunk], port))
            summary["packets_in"] += len(chunk)
            summary["drops"] += len(res.drop_code)
            drops: dict[int, list[str]] = {}
            for i, d in zip(res.drop_source.tolist(), res.drop_code.tolist()):
                drops.setdefault(i, []).append(DROP_REASONS[d])
            sources, ports, lengths = res.source.tolist(), res.ports.tolist(), res.lengths.tolist()
            k = 0
            for i in range(len(chunk)):
                sent = False
                while k < len(sources) and sources[k] == i:
                    data = res.data[k, :lengths[k]].tobytes()
                    key = str(ports[k])
                    summary["packets_out"][key] = summary["packets_out"].get(key, 0) + 1
                    if out is not None:
                        w = writers.get(ports[k])
                        if w is None:
                            w = writers[ports[k]] = PcapWriter(out / f"port{ports[k]}.pcap")
                        w.write(data, chunk[i][0])
                    else:
                        echo(f"packet {start + i}: out port {ports[k]}: {data.hex()}")
                    k += 1
                    sent = True
                if out is None and not sent:
                    echo(f"packet {start + i}: dropped ({'; '.join(drops.get(i, [])) or 'no output'})")
            start += len(chunk)
    finally:
        for w in writers.values():
            w.close()
    return summary


def _reading(packets: Iterable[tuple[int, bytes]], pcap: Path, line: progress.Progress):
    """The packets as they come, telling the progress line how far into the capture they are:
    a classic pcap is a 24-byte header and per packet a 16-byte record header and the bytes
    (pcapng's blocks are a little longer, so its estimate runs a little behind)."""
    line.stage(f"run-packet {pcap.name}", pcap.stat().st_size, "B")
    done = 24
    for item in packets:
        done += 16 + len(item[1])
        line.done = done
        yield item


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
