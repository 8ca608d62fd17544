"""``run-packet --jobs``: a capture's batches on several CPUs, its pcaps as one process writes them.

Once the pipeline is compiled and the tables are loaded, the command forks ``jobs - 1``
workers (``os.fork``: each starts with the switch as it is, nothing rebuilt). Batch ``i`` of the
capture (``dataplane.pcap.read_batches``) is run by job ``i % jobs``, job 0 being the parent:
on the batch engine as arrays (``BatchStep``), on the per-packet engine a packet at a time
(``step``); either step hands each port's outputs to a writer. The parent owns the
output files. A worker lays out its outputs' pcap records, per port in packet
order, and sends their sizes through a pipe; the parent, taking the batches in order, its own
and the workers', leaves room for them in each port's pcap (``PcapWriter.reserve``) and
answers with the offsets, where the worker writes them (``os.pwrite``). The files are byte
for byte those one process writes; the parent copies none of the workers' bytes, and a worker
keeps at most two batches' outputs waiting, so memory stays bounded.

Counters (indexed and direct) are sums, so they come out the same counted apart: each worker
sends what it added to every cell and entry (``counts``, ``add_counts``) and the parent adds
it. State whose result depends on packet order (registers, meters, ...) keeps a program on one
job, and ``plan_jobs`` says why: the batch engine refuses most of it already, the per-packet
engine runs apart only what ``step.per_packet_state`` knows to be safe.
"""
from __future__ import annotations

import os
import pickle
import signal
import struct
from itertools import islice
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from dataplane.errors import DataplaneError
from dataplane.pcap.writer import lay_out, record_block
from dataplane.resources import available_cpus

_HEAD = struct.Struct("<Q")




def plan_jobs(dp: Any, asked: int | None, state: Callable[[Any], str] | None = None) -> tuple[int, str]:
    """(jobs, why): ``asked`` (None: auto, up to 2 when there are CPUs for them) unless the
    platform or the program needs one; ``why`` says why when it is one. ``state(dp)`` names
    what of the program would come out otherwise run apart (default: ``order_dependent_state``,
    the batch engine's case; ``step.per_packet_state`` for the per-packet engine)."""
    if asked == 1:
        return 1, "as asked"
    if not hasattr(os, "fork"):
        return 1, "no os.fork on this platform"
    if asked is None:
        cpus = available_cpus()
        if cpus < 2:
            return 1, "one CPU"
        asked = 2
    found = (state or order_dependent_state)(dp)
    if found:
        return 1, f"the program keeps state across packets in order ({found})"
    return asked, ""


def order_dependent_state(dp: Any) -> str:
    """What of the device's program would give other results run apart ('' if nothing):
    registers and meters (the batch engine refuses them: this is a second line)."""
    found = [f"{type(inst).__name__.lower()} {name}" for name, inst in dp.instances.items()
             if type(inst).__name__ in ("Register", "Meter", "DirectMeter")]
    found += [f"direct meter on table {name}" for name, rt in dp.tables.items() if getattr(rt, "has_direct_meter", False)]
    return ", ".join(found)


# Indexed counters whose cells are ``packets`` and ``bytes`` lists (v1model's, PSA's, PNA's).
COUNTER_TYPES = ("Counter", "PsaCounter", "PnaCounter")


def counts(dp: Any) -> dict:
    """Every count a job adds to: each indexed counter's cells and each entry of a table that
    counts on its entries (a direct counter, or an action selector's groups), in handle
    order, as (packets, bytes) lists."""
    out: dict = {}
    for name, inst in dp.instances.items():
        if type(inst).__name__ in COUNTER_TYPES:
            out[("counter", name)] = (list(inst.packets), list(inst.bytes))
    for name, rt in dp.tables.items():
        if (getattr(rt, "has_direct_counter", False) or getattr(rt, "selector_fields", None)
                or getattr(rt, "direct_counter", None) is not None):
            entries = [e.value for e in rt.match.entries()]
            out[("table", name)] = ([e.packets for e in entries], [e.bytes for e in entries])
    return out


def count_deltas(before: dict, after: dict) -> list:
    """What was added between two ``counts``: (which, index, packets, bytes) of the cells that changed."""
    out = []
    for which, (packets, nbytes) in after.items():
        p0, b0 = before[which]
        out += [(which, i, p - p0[i], b - b0[i]) for i, (p, b) in enumerate(zip(packets, nbytes))
                if p != p0[i] or b != b0[i]]
    return out


def add_counts(dp: Any, deltas: list) -> None:
    """Add a worker's ``count_deltas`` to the device's counters."""
    entries: dict = {}
    for (kind, name), i, packets, nbytes in deltas:
        if kind == "counter":
            inst = dp.instances[name]
            inst.packets[i] += packets
            inst.bytes[i] += nbytes
        else:
            if name not in entries:
                entries[name] = [e.value for e in dp.tables[name].match.entries()]
            entry = entries[name][i]
            entry.packets += packets
            entry.bytes += nbytes


class BatchStep:
    """One batch of a capture through the pipeline, its outputs handed to ``writer(port)``
    objects (``PcapWriter`` or a worker's ``_Collector``) in packet order, per port."""

    def __init__(self, pipeline: Any, port: int):
        self.pipeline, self.port = pipeline, port
        self.dp = pipeline.dp
        # Buffers the file's records are copied into, used in turn: ``keep`` batches' outputs
        # may still be views of them (a worker's, until the parent says where they go).
        self.keep = 1
        self.spares: list[np.ndarray | None] = [None, None]
        self.turn = 0

    def __call__(self, batch: Any, writer: Callable[[int], Any]) -> int:
        """Run ``batch``; the number of packets dropped."""
        from dataplane.engine.batch.layout import PacketBatch

        n = len(batch)
        drops = 0
        # The batch is this loop's own (read_batches maps the file copy-on-write), so the
        # engine may write its outputs over it; with the file's records copied first, an
        # output that kept its input's length and place is its record already.
        records = None
        if batch.records is not None:   # into one buffer for the whole run: fresh pages cost faults
            self.turn = (self.turn + 1) % self.keep
            spare = self.spares[self.turn]
            if spare is None or spare.shape[1] != batch.records.shape[1] or len(spare) < n:
                spare = self.spares[self.turn] = np.empty_like(batch.records)
            records = spare[:n]
            np.copyto(records, batch.records)
        data = records[:, 16:] if records is not None else batch.data
        run = self.pipeline.run_chunks(PacketBatch(data, batch.lengths, np.full(n, self.port, dtype=np.int64)),
                                       scratch=True)
        for first, res in run:
            drops += len(res.drop_code)
            if not len(res.ports):       # every packet of the chunk dropped
                continue
            stamps = None
            if res.in_place and records is not None:
                block = records[first:first + len(res)]
            else:
                stamps = batch.timestamps[first + res.source]
                block = record_block(res.data, res.lengths, stamps)
            write_by_port(writer, res, block, None if block is not None else stamps)
        return drops


def write_by_port(writer: Callable[[int], Any], res: Any, block: np.ndarray | None, stamps: np.ndarray | None) -> None:
    """Each port's outputs of ``res``, in packet order, appended to ``writer(port)``: ``block``
    (their records, ``record_block``) or, when their lengths differ, laid out from ``res`` with
    ``stamps``. One stable sort by port (a radix sort on 16 bits: ports are 9), then slices."""
    ports = res.ports
    if (ports == ports[0]).all():
        order, cuts = None, []
    else:
        order = np.argsort(ports.astype(np.int16), kind="stable")
        ports = ports[order]
        cuts = (np.flatnonzero(ports[1:] != ports[:-1]) + 1).tolist()
        if block is not None:   # np.take copies whole rows: 3-10x faster here than block[order]
            block = np.take(block, order, axis=0)
    for lo, hi in zip([0, *cuts], [*cuts, len(ports)]):
        w = writer(int(ports[lo]))
        if block is not None:
            w.write_records(block[lo:hi])
        else:
            rows = order[lo:hi] if order is not None else slice(lo, hi)
            w.write_batch(res.data[rows], res.lengths[rows], stamps[rows])


class _Collector:
    """A worker's stand-in for a port's ``PcapWriter``: the records, laid out as it lays them
    out, kept as ``(port, array, count)`` for the parent to append."""

    __slots__ = ("port", "segments")

    def __init__(self, port: int, segments: list):
        self.port, self.segments = port, segments

    def write_records(self, block: np.ndarray) -> None:
        if len(block):
            self.segments.append((self.port, block, len(block)))

    def write_batch(self, data: np.ndarray, lengths: np.ndarray, timestamps: np.ndarray | None = None) -> None:
        if len(lengths):
            self.segments.append((self.port, lay_out(data, lengths, timestamps), len(lengths)))

    def write_packed(self, records: bytes, count: int) -> None:
        if count:
            # kept as bytes: on PyPy a numpy array over them (cpyext) made the worker 4x slower
            self.segments.append((self.port, records, count))


def own_offset(f: Any, path: Any) -> Callable[[], Callable[[], None]]:
    """For ``run_split``'s ``before_fork``: the open file ``f`` (of ``path``) given its own place
    in the worker. A forked process shares its parent's open files, their offsets included, so
    the reads of one (pcapng, or a classic pcap's mixed-length part, read as they go) would
    move the other's; the worker reopens the file at the offset it had at the fork, under the
    same descriptor, and the buffered reader above it carries on as if nothing happened."""
    def before_fork() -> Callable[[], None]:
        fd = f.fileno()
        at = os.lseek(fd, 0, os.SEEK_CUR)

        def in_worker() -> None:
            fresh = os.open(path, os.O_RDONLY)
            os.lseek(fresh, at, os.SEEK_SET)
            os.dup2(fresh, fd)
            os.close(fresh)
        return in_worker
    return before_fork


def run_split(step: Any, batches: Iterable[Any], writer: Callable[[int], Any], jobs: int,
              seen: Callable[[Any], None] = lambda batch: None,
              before_fork: Callable[[], Callable[[], None]] | None = None, warm: bool = False) -> tuple[int, int]:
    """Run ``batches`` on ``jobs`` processes (see the module's docstring); every output goes to
    ``writer(port)`` (a ``PcapWriter``) in the order one process gives. ``seen(batch)`` is called
    in the parent for each batch, in order. ``before_fork()``, called in the parent before each
    fork, gives what the worker runs first (``own_offset``). ``warm``: the parent runs the first
    batch before it forks, so the workers start with what it made on the way (PyPy's JIT
    compiles the per-packet engine's code once, not once a job). Returns (packets in, drops)."""
    batches = iter(batches)
    workers: list[tuple[int, int, int]] = []    # (pid, results fd, places fd)
    finished = False
    packets_in = drops = start = 0
    try:
        if warm:
            for batch in islice(batches, 1):
                seen(batch)
                packets_in += len(batch)
                drops += step(batch, writer)
                start = 1
        for j in range(1, jobs):
            res_r, res_w = os.pipe()
            put_r, put_w = os.pipe()
            in_worker = before_fork() if before_fork is not None else None
            pid = os.fork()
            if pid == 0:     # the worker: never returns
                os.close(res_r)
                os.close(put_w)
                for _, fd1, fd2 in workers:
                    os.close(fd1)
                    os.close(fd2)
                _worker(step, enumerate(batches, start), j, jobs, res_w, put_r, in_worker)
            os.close(res_w)
            os.close(put_r)
            workers.append((pid, res_r, put_w))
        for i, batch in enumerate(batches, start):
            seen(batch)
            packets_in += len(batch)
            j = i % jobs
            if j == 0:
                drops += step(batch, writer)
                continue
            _pid, res_r, put_w = workers[j - 1]
            _, index, dropped, segments = _expect(res_r, "batch", j)
            if index != i:
                raise DataplaneError(f"run-packet: job {j} sent batch {index} where batch {i} was due")
            drops += dropped
            places = []
            for port, nbytes, count in segments:
                w = writer(port)
                places.append((str(w.path), w.reserve(nbytes, count)))
            try:
                _send(put_w, places)
            except BrokenPipeError:     # it has failed: its message says why
                _expect(res_r, "end", j)
                raise
        for j, (_pid, res_r, _) in enumerate(workers, start=1):
            add_counts(step.dp, _expect(res_r, "end", j)[1])
        finished = True
        return packets_in, drops
    finally:
        for pid, res_r, put_w in workers:
            os.close(res_r)
            os.close(put_w)
            try:
                if not finished:      # an error here or in a worker: the others stop now
                    os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)    # (a finished worker has sent "end" and is exiting)
            except (ChildProcessError, ProcessLookupError):
                pass


def _expect(fd: int, kind: str, j: int) -> tuple:
    """The next message from a worker, which must be ``kind``; a worker's error is raised here."""
    msg = _recv(fd)
    if msg is not None and msg[0] == "error":
        raise msg[1]
    if msg is None or msg[0] != kind:
        raise DataplaneError(f"run-packet: job {j} ended before it had finished")
    return msg


def _worker(step: Any, batches: Iterator[tuple[int, Any]], j: int, jobs: int, res_w: int, put_r: int,
            in_worker: Callable[[], None] | None) -> None:
    """Job ``j``: batches ``j``, ``j + jobs``, ...; per batch, the sizes of its outputs go to the
    parent, which answers with where in which file they go, and they are written there. Exits."""
    status = 0
    files: dict[str, int] = {}
    pending: list[list] = []     # batches whose places are awaited, oldest first

    def place_oldest() -> bool:
        places = _recv(put_r)
        if places is None:
            return False            # the parent went away
        for (path, at), (_, a, _) in zip(places, pending.pop(0)):
            fd = files.get(path)
            if fd is None:
                fd = files[path] = os.open(path, os.O_WRONLY)
            view = memoryview(a if isinstance(a, bytes) else np.ascontiguousarray(a)).cast("B")
            while view:
                done = os.pwrite(fd, view, at)
                view, at = view[done:], at + done
        return True

    try:
        if in_worker is not None:
            in_worker()
        before = counts(step.dp)
        step.keep = 2      # two batches' outputs in flight: no batch's records written over
        for i, batch in batches:
            if i % jobs != j:
                continue
            segments: list = []
            dropped = step(batch, lambda port, segments=segments: _Collector(port, segments))
            _send(res_w, ("batch", i, dropped, [(port, len(a) if isinstance(a, bytes) else int(a.nbytes), count)
                                                for port, a, count in segments]))
            pending.append(segments)
            if len(pending) > 1 and not place_oldest():
                return
        while pending:
            if not place_oldest():
                return
        _send(res_w, ("end", count_deltas(before, counts(step.dp))))
    except BaseException as err:     # sent to the parent, which raises it
        status = 1
        try:
            pickle.dumps(err)
        except Exception:
            err = DataplaneError(f"run-packet: job {j} failed: {type(err).__name__}: {err}")
        try:
            _send(res_w, ("error", err))
        except OSError:
            pass
    finally:
        os._exit(status)     # no atexit handlers, no flushing of the parent's buffered files


def _send(fd: int, obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(_HEAD.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view):]


def _recv(fd: int) -> Any:
    head = _read(fd, _HEAD.size)
    if head is None:
        return None
    body = _read(fd, _HEAD.unpack(head)[0])
    return None if body is None else pickle.loads(body)


def _read(fd: int, n: int) -> bytes | None:
    parts = []
    while n:
        got = os.read(fd, min(n, 1 << 20))
        if not got:
            return None
        parts.append(got)
        n -= len(got)
    return b"".join(parts)
