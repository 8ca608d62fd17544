"""``run-packet --jobs`` on the per-packet engine: a capture's packets in lists, run one at a
time in each job, and what of a program may run apart.

The per-packet engine is what runs every program the batch engine refuses (and every program
on PyPy, whose JIT runs it faster than numpy's batches). Split across jobs as the batch engine
is (``jobs.run_split``), a replay must come out byte for byte as one process writes it,
so a program runs apart only when nothing it does depends on the packets before it:
``per_packet_state`` lets through the externs known to be sums or free of state, and names the
first thing that is not (a register, a meter, ``random``, a digest, a log line, an idle timeout,
a table written from the data plane, or anything it does not know).
"""
from __future__ import annotations

from array import array
from typing import Any, Callable

import numpy as np

from dataplane.pcap.writer import RECORD_HEAD

# Packets a batch (the unit a job takes): about 0.05-0.1 s of the per-packet engine's work.
PACKET_SPLIT_BATCH = 8192

# Extern objects that hold no state a packet reads (hashes, checksums, action profiles, value
# sets: the control plane's), or only sums that ``jobs.counts`` gathers (counters).
_APART_INSTANCES = frozenset({
    "Counter", "DirectCounter", "PsaCounter", "PsaDirectCounter", "PnaCounter", "PnaDirectCounter",
    "Checksum16", "PsaHash", "PsaChecksum", "PsaInternetChecksum", "PnaHash", "InternetChecksum",
    "ActionProfile", "ActionSelector", "PsaActionProfile", "PsaActionSelector", "ValueSet",
    "PsaFixedFunction",    # PSA's replication and queueing engines: the device does their work
})
# Extern functions whose effect is on the packet alone (its fate, copies and checksums).
_APART_FUNCTIONS = frozenset({
    "mark_to_drop", "verify_checksum", "update_checksum", "verify_checksum_with_payload",
    "update_checksum_with_payload", "hash", "clone", "clone3", "clone_preserving_field_list",
    "resubmit", "resubmit_preserving_field_list", "recirculate", "recirculate_preserving_field_list",
    "truncate", "assert", "assume", "send_to_port", "drop_packet", "mirror_packet",
    "SelectByDirection", "is_net_port", "is_host_port",
})


def per_packet_state(dp: Any) -> str:
    """What of the device's program would give other results run apart on the per-packet
    engine ('' if nothing): externs and extern functions outside the lists above, and tables
    that time-stamp their hits for idle timeouts."""
    found = [f"{type(inst).__name__} {name}" for name, inst in dp.instances.items()
             if type(inst).__name__ not in _APART_INSTANCES]
    found += [f"{fn}()" for fn in sorted(dp.pipeline.extern_functions() - _APART_FUNCTIONS)]
    found += [f"idle timeout on table {name}" for name, rt in dp.tables.items() if getattr(rt, "support_timeout", False)]
    found += [f"direct meter on table {name}" for name, rt in dp.tables.items() if getattr(rt, "has_direct_meter", False)]
    return ", ".join(found)


class PacketStep:
    """One batch of a capture (``dataplane.pcap.read_batches``: arrays, which a job skips for
    nothing) through the switch's per-packet engine, a packet at a time; each port's outputs,
    in packet order and stamped with their input's time, handed to ``writer(port)``
    (``PcapWriter`` or a worker's collector) at the end as the records ``PcapWriter.write``
    makes (nanosecond stamps, 65,535-byte snap length, as ``run-packet`` writes them)."""

    snaplen = 65535

    def __init__(self, sw: Any, port: int):
        self.dp, self.process, self.port = sw.dp, sw.process, port

    def __call__(self, batch: Any, writer: Callable[[int], Any]) -> int:
        """Run ``batch``; the number of drops (as ``run-packet`` counts them: each reason)."""
        process, port, snaplen, head = self.process, self.port, self.snaplen, RECORD_HEAD.pack
        # The batch's bytes as one string, cut per packet in Python: one numpy call a batch (on
        # PyPy, numpy is reached through a slow C-API layer) and no array per packet. Lengths
        # and times through ``array`` too: PyPy's ``ndarray.tolist`` costs 0.8 us an item.
        width = batch.data.shape[1]
        blob = np.ascontiguousarray(batch.data).tobytes()
        lengths = array("q", batch.lengths.astype(np.int64, copy=False).tobytes())
        stamps = array("q", batch.timestamps.astype(np.int64, copy=False).tobytes())
        # Records laid out as they come (a header and the bytes per packet), joined per port at
        # the end: holding (bytes, time) pairs for the batch cost PyPy's collector 1 us a packet.
        records: dict[int, list[bytes]] = {}
        drops = at = 0
        for n, time_ns in zip(lengths, stamps):
            result = process(port, blob[at:at + n])
            at += width
            if result.drops:
                drops += len(result.drops)
            if result.outputs:
                sec, frac = divmod(time_ns, 1_000_000_000)
                for o in result.outputs:
                    parts = records.get(o.port)
                    if parts is None:
                        parts = records[o.port] = []
                    data = o.data
                    size = len(data)
                    if size > snaplen:
                        data = data[:snaplen]
                    parts.append(head(sec, frac, len(data), size))
                    parts.append(data)
        for p, parts in records.items():
            writer(p).write_packed(b"".join(parts), len(parts) // 2)
        return drops
