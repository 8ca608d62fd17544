"""Decisions over packet bytes: the run-time half of the decision cache.

A **shape** is one path's layout: the headers the parser extracted, in order, so each field sits
at a known bit of the packet's first ``region`` bytes, read as one big-endian integer ``v``.
Per shape, three masks split those bits by what the program does with them (``reads.FieldUse``):
``kmask`` the key fields, ``pmask`` the carried fields, and the checksum fields it recomputes.

A **decision** is what the program did to the first packet of a flow: the egress port and the
header bytes it left, carried and checksum bits cleared (the ``template``), or a drop. A packet
``y`` whose key bits, checksum verdicts (and ingress port and length, when the program reads
them) equal those of the packet the decision was made from reads the same values at every step
of the program, so it takes the same path and leaves with the template's bits, its own carried
bits and freshly computed checksums:

    out = (v & pmask) | template;  out |= csum16(header) << checksum position, per update

The shapes are searched in the order they were met (Open vSwitch's tuple-space search over
megaflow masks); at most one can match. ``clear`` forgets every decision: the switch calls it on
every table write, before the next packet.
"""
from __future__ import annotations

from typing import Any

from dataplane.engine.decision.reads import FieldUse
from dataplane.engine.structgen import py_name

__all__ = ["Shape", "Decision", "DecisionCache", "csum16_int", "UNCACHEABLE"]

#: the most decisions one switch keeps; past it the cache starts again (runs stay exact)
MAX_ENTRIES = 1 << 16


def csum16_int(n: int) -> int:
    """``engine.hashes.csum16`` of a big-endian number: 0xFFFF for 0, else the ones' complement of
    the 16-bit word sum, which is ``n`` modulo 0xFFFF (2**16 is 1 modulo 0xFFFF)."""
    if not n:
        return 0xFFFF
    s = n % 0xFFFF
    return 0 if s == 0 else s ^ 0xFFFF


class Shape:
    """One path's header layout and masks (see the module docstring)."""

    __slots__ = ("headers", "region", "kmask", "pmask", "cmask", "verify", "update", "carried", "table")

    def __init__(self, use: FieldUse, headers: tuple[str, ...]):
        self.headers = headers
        sizes = [use.headers[h].width // 8 for h in headers]
        self.region = region = sum(sizes)
        top = region * 8
        self.kmask = self.pmask = self.cmask = 0
        verify, update, carried = [], [], []
        updated = set(use.update)
        offset = 0
        for h, size in zip(headers, sizes):
            layout = use.headers[h]
            end = top - offset * 8 - layout.width        # shift of the header's last bit
            for f in layout.fields:
                shift = end + layout.width - f.offset - f.width
                mask = ((1 << f.width) - 1) << shift
                key = (h, f.name) in use.key_fields
                if key:
                    self.kmask |= mask
                if (h, f.name) in updated:
                    self.cmask |= mask
                elif not key:
                    self.pmask |= mask
                if not key:      # a value the packet brings (carried, or a checksum ingress left alone)
                    carried.append((py_name(h), py_name(f.name), shift, (1 << f.width) - 1))
            hmask = (1 << layout.width) - 1
            for vh, c in use.verify:
                if vh == h:
                    cf = next(f for f in layout.fields if f.name == c)
                    verify.append((end, hmask, layout.width - cf.offset - 16))
            for uh, c in use.update:
                if uh == h:
                    cf = next(f for f in layout.fields if f.name == c)
                    update.append((end + layout.width - cf.offset - 16, end, hmask))
            offset += size
        self.verify = tuple(verify)
        self.update = tuple(update)
        self.carried = tuple(carried)
        self.table: dict[tuple, Decision] = {}

    def key(self, v: int, port: int, n: int) -> tuple:
        """The key of a packet whose first ``region`` bytes are ``v`` (port and length: 0 unless read)."""
        vb = 0
        for shift, hmask, cshift in self.verify:
            h = (v >> shift) & hmask
            c = (h >> cshift) & 0xFFFF
            vb = (vb << 1) | (csum16_int(h ^ (c << cshift)) == c)
        return (v & self.kmask, vb, port, n)

    def output(self, v: int, template: int, data: bytes) -> bytes:
        """The bytes a packet ``data`` (its region ``v``) leaves with under a decision's ``template``."""
        out = (v & self.pmask) | template
        for gshift, shift, hmask in self.update:
            out |= csum16_int((out >> shift) & hmask) << gshift
        r = self.region
        head = out.to_bytes(r, "big")
        return head + data[r:] if len(data) > r else head


class Decision:
    """What the program did on one path: ``port`` (None: dropped in ingress), ``template`` (None:
    dropped in egress), ``drop`` (the drop's reason), ``priority`` (the queue it asked for),
    ``snapshot`` (headers, metadata and standard metadata as ingress left them, for the packets
    whose egress must run again) and its ``shape``. ``ingress_events`` and ``egress_events`` are
    the table lookups ``(table, hit)`` and actions ``(action, None)`` of each half, in order, for
    a trace that only counts them (a report's)."""

    __slots__ = ("port", "template", "drop", "priority", "snapshot", "shape", "ingress_events", "egress_events")

    def __init__(self, port: int | None, template: int | None, drop: str | None, priority: int, snapshot: Any,
                 shape: Shape | None, ingress_events: tuple = (), egress_events: tuple = ()):
        self.port, self.template, self.drop, self.priority = port, template, drop, priority
        self.snapshot, self.shape = snapshot, shape
        self.ingress_events, self.egress_events = ingress_events, egress_events


#: stored for a key whose path the cache does not replay (multicast, a clone...): the switch runs it
UNCACHEABLE = Decision(None, None, "uncacheable", 0, None, None)


class DecisionCache:
    """The decisions of one switch: shapes met so far and, per shape, decisions by key."""

    def __init__(self, use: FieldUse, max_entries: int = MAX_ENTRIES):
        self.use = use
        self.shapes: list[Shape] = []
        self._by_headers: dict[tuple[str, ...], Shape] = {}
        self.reads_port = "ingress_port" in use.metadata_reads
        self.reads_length = "packet_length" in use.metadata_reads
        self.max_entries = max_entries
        self.entries = 0
        self.hits = 0
        self.misses = 0
        self.invalidations = 0

    def shape(self, headers: tuple[str, ...]) -> Shape:
        sh = self._by_headers.get(headers)
        if sh is None:
            sh = self._by_headers[headers] = Shape(self.use, headers)
            self.shapes.append(sh)
        return sh

    def lookup(self, port: int, data: bytes) -> tuple[Decision | None, int, Shape | None]:
        """(decision, the packet's region as an int, its shape), or (None, 0, None) on a miss."""
        n = len(data)
        kp = port if self.reads_port else 0
        kn = n if self.reads_length else 0
        for sh in self.shapes:
            r = sh.region
            if n < r:
                continue
            v = int.from_bytes(data[:r], "big")
            d = sh.table.get(sh.key(v, kp, kn))
            if d is not None:
                self.hits += 1
                return d, v, sh
        self.misses += 1
        return None, 0, None

    def store(self, sh: Shape, port: int, data: bytes, d: Decision) -> None:
        if self.entries >= self.max_entries:
            self.clear()
        v = int.from_bytes(data[:sh.region], "big")
        sh.table[sh.key(v, port if self.reads_port else 0, len(data) if self.reads_length else 0)] = d
        self.entries += 1

    def clear(self) -> None:
        """Forget every decision (a table changed)."""
        for sh in self.shapes:
            sh.table.clear()
        self.entries = 0
        self.invalidations += 1
