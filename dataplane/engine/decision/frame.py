"""A frame whose first bytes a switch rewrote, over the payload it came with, not yet joined.

A decision (``cache``) rewrites a packet's header region and leaves the rest alone, so a 4 KB
RoCE frame crossing five switches would be copied whole five times to change a few dozen bytes.
A ``Frame`` keeps its first bytes (``head``) apart from the bytes it came in (``base``, whose first
``len(head)`` bytes it replaces): a switch reads the header from ``head`` and hands the same
``base`` on under its new header, and the bytes are joined once, where something needs them
whole (a capture, a host, a pipeline run, a lossy link). A host does the same with a sender's
body, the same bytes under every packet's headers (``dataplane.net.hosts.host``), so that a frame
is not copied at all until it leaves the fabric.

The network layer decides where frames stay unjoined (``switch_node.unjoined_ok``): only on a
link into a switch whose cache takes them, so nothing else ever sees one. ``bytes(frame)`` (or
``join``) gives the frame; ``len`` its length; pickling gives bytes.
"""
from __future__ import annotations

from typing import Any

__all__ = ["Frame", "UNJOINED_MIN"]

#: frames shorter than this are joined at once: copying a kilobyte costs less than a Frame and its
#: later join (``tools/bench_sim.py``'s ``udp``, 1000-byte payloads, lost 5-14% unjoined)
UNJOINED_MIN = 2048


class Frame:
    """``head + base[len(head):]``, unjoined (the module docstring)."""

    __slots__ = ("head", "base")

    def __init__(self, head: Any, base: Any):
        self.head = head
        self.base = base

    def join(self) -> bytes:
        """The frame's bytes."""
        head = self.head
        return head + self.base[len(head):]

    def __bytes__(self) -> bytes:
        return self.join()

    def __len__(self) -> int:
        return len(self.base)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Frame):
            other = other.join()
        return isinstance(other, (bytes, bytearray)) and self.join() == other

    def __hash__(self) -> int:
        return hash(self.join())

    def __getitem__(self, index: Any) -> Any:
        whole: Any = self.join()      # (typed bytes, the compiled build would index it by int only)
        return whole[index]

    def __reduce__(self) -> tuple:
        # another process (a cut link's far end, dataplane.net.parallel) gets plain bytes
        return bytes, (self.join(),)

    def __repr__(self) -> str:
        return f"Frame({self.join()!r})"
