"""Per-packet state shared by the generated code, the externs and the architecture."""
from __future__ import annotations


class PacketContext:
    """One packet's pass through a pipeline: its bytes, parse position, metadata and requests.

    Externs record what the architecture acts on at the end of a block (clone, resubmit,
    recirculate, truncate); ``trace`` is None unless a trace is being recorded.
    """

    __slots__ = ("buf", "pos", "sm", "trace", "packet_length", "direct_meter_color", "switch", "now_us",
                 "clone_request", "resubmit_request", "recirculate_request", "truncate_length", "log")

    def __init__(self, buf: bytes, sm, switch=None, trace=None, now_us: int = 0, pos: int = 0,
                 packet_length: int | None = None, truncate_length: int | None = None):
        self.buf = buf
        self.pos = pos
        self.sm = sm
        self.trace = trace
        self.packet_length = len(buf) if packet_length is None else packet_length
        self.direct_meter_color = 0
        self.switch = switch
        self.now_us = now_us
        self.clone_request = None       # (clone type, session, field list index or None)
        self.resubmit_request = None    # field list index
        self.recirculate_request = None
        self.truncate_length = truncate_length
        self.log = None

    @property
    def payload(self) -> bytes:
        """The bytes the parser did not consume."""
        return self.buf[self.pos:]
