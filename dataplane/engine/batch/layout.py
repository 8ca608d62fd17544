"""A batch of packets: bytes as a 2-D uint8 array padded to the widest, lengths and ingress ports."""
from __future__ import annotations

from typing import Sequence

import numpy as np


class PacketBatch:
    """``data[i, :lengths[i]]`` is packet ``i``; it arrived on ``ports[i]``."""

    __slots__ = ("data", "lengths", "ports")

    def __init__(self, data: np.ndarray, lengths: np.ndarray, ports: np.ndarray):
        self.data = data
        self.lengths = lengths.astype(np.int64, copy=False)
        self.ports = ports.astype(np.int64, copy=False)

    def __len__(self) -> int:
        return len(self.lengths)

    @classmethod
    def from_packets(cls, packets: Sequence[bytes], ports: int | Sequence[int] = 0) -> "PacketBatch":
        """A batch of ``packets`` (bytes), all arriving on ``ports`` (one port, or one per packet)."""
        n = len(packets)
        lengths = np.fromiter(map(len, packets), dtype=np.int64, count=n)
        width = int(lengths.max()) if n else 0
        if n == 0 or width == 0:
            data = np.zeros((n, width), dtype=np.uint8)
        else:
            # numpy's fixed-width bytes type pads every packet with zeros in one C loop (about 7
            # times faster here than bytes.ljust and a join, and 40 times faster than a scatter).
            data = np.array(packets, dtype=f"S{width}").view(np.uint8).reshape(n, width)
        port_arr = np.full(n, ports, dtype=np.int64) if isinstance(ports, int) else np.asarray(ports, dtype=np.int64)
        return cls(data, lengths, port_arr)

    def packet(self, i: int) -> bytes:
        return self.data[i, :self.lengths[i]].tobytes()

    def packets(self) -> list[bytes]:
        return [self.data[i, :n].tobytes() for i, n in enumerate(self.lengths.tolist())]
