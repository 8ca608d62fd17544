"""Packet captures without scapy: classic pcap and pcapng, read and written fast.

A top-level package (not under engine/ or net/) because every layer that touches captures
needs it: the testing layer's ``run-packet``, the batch engine, and the simulator's capture
(``dataplane.net`` may not import the engine). It imports nothing of the project but
``dataplane.errors``.

- :func:`open_capture` / :func:`iter_packets`: ``(time_ns, bytes)`` one at a time, constant memory.
- :func:`read_batches`: chunks of N packets as numpy arrays (:class:`PacketBatch`).
- :class:`PcapWriter`: a classic pcap written one packet at a time or from arrays in bulk.
"""
from dataplane.pcap.batch import PacketBatch, read_batches
from dataplane.pcap.format import PcapError
from dataplane.pcap.reader import CaptureReader, iter_packets, open_capture
from dataplane.pcap.writer import PcapWriter

__all__ = ["CaptureReader", "PacketBatch", "PcapError", "PcapWriter", "iter_packets", "open_capture",
           "read_batches"]
