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

from typing import Any, Callable

from dataplane.engine.decision import byte_find
from dataplane.engine.decision.frame import UNJOINED_MIN, Frame
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

    __slots__ = ("headers", "region", "kmask", "pmask", "cmask", "verify", "update", "carried", "table", "fast")

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
        self.fast = self._fast_checksum()

    def _fast_checksum(self) -> tuple | None:
        """For the IPv4 idiom (one checksum, verified and updated, in a byte-aligned header, a
        byte-aligned field no key reads): ``(the header's shift in the region, its mask, the
        checksum's byte, 2**(its shift in the header mod 16), that shift)``, so that ``verdict``
        takes one sum and ``lookup`` finds the new checksum from the old sum; None for other
        layouts (the general arithmetic)."""
        if len(self.verify) != 1 or len(self.update) != 1:
            return None
        end, hmask, cshift = self.verify[0]
        gshift, ushift, uhmask = self.update[0]
        width = hmask.bit_length()
        if (ushift, uhmask) != (end, hmask) or gshift != end + cshift or end % 8 or width % 8 or cshift % 8 \
                or self.cmask != 0xFFFF << gshift or self.cmask & self.kmask:
            return None
        return end, hmask, self.region - (end + cshift + 16) // 8, 1 << (cshift % 16), cshift

    def verdict(self, v: int, data: Any) -> tuple[bool, int]:
        """``(whether the checksum verifies, the header's sum without it modulo 0xFFFF)`` of a packet
        ``data`` of a ``fast`` shape (its region ``v``): one modulo where ``key`` takes two."""
        shift, hmask, at, weight, cshift = self.fast  # type: ignore[misc]
        h = (v >> shift) & hmask
        c = data[at] << 8 | data[at + 1]
        s = (h - c * weight) % 0xFFFF      # 2**16 is 1 modulo 0xFFFF: the field weighs 2**(cshift mod 16)
        if s:
            return (s ^ 0xFFFF) == c, s
        # a sum of 0: the checksum is 0xFFFF if the rest of the header is all zero, else 0
        return c == (0xFFFF if h == c << cshift else 0), s

    def key(self, v: int, port: int, n: int, data: bytes = b"") -> tuple:
        """The key of a packet ``data`` whose first ``region`` bytes are ``v`` (port and length: 0
        unless read)."""
        if self.fast is not None:
            return v & self.kmask, self.verdict(v, data)[0], port, n
        vb = 0
        for shift, hmask, cshift in self.verify:
            h = (v >> shift) & hmask
            c = (h >> cshift) & 0xFFFF
            vb = (vb << 1) | (csum16_int(h ^ (c << cshift)) == c)
        return (v & self.kmask, vb, port, n)

    def output(self, v: int, template: int, data: Any) -> bytes:
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

    __slots__ = ("port", "template", "drop", "priority", "snapshot", "shape", "ingress_events", "egress_events",
                 "delta")

    def __init__(self, port: int | None, template: int | None, drop: str | None, priority: int, snapshot: Any,
                 shape: Shape | None, ingress_events: tuple = (), egress_events: tuple = ()):
        self.port, self.template, self.drop, self.priority = port, template, drop, priority
        self.snapshot, self.shape = snapshot, shape
        self.ingress_events, self.egress_events = ingress_events, egress_events
        # what the decision adds to a header's sum modulo 0xFFFF (a ``fast`` shape's checksum; see ``store``)
        self.delta: int | None = None


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
        #: ``lookup``, or the same for a cache of one ``fast`` shape with its constants bound (``_one_shape``),
        #: or on PyPy that one read byte by byte (``byte_find``), whose tables, one per verdict, are these
        self.find: Callable[[int, Any], tuple[Decision | None, Any]] = self.lookup
        self._byte_tables: tuple[dict, dict] = ({}, {})

    def shape(self, headers: tuple[str, ...]) -> Shape:
        sh = self._by_headers.get(headers)
        if sh is None:
            sh = self._by_headers[headers] = Shape(self.use, headers)
            self.shapes.append(sh)
            if len(self.shapes) == 1 and sh.fast is not None:
                find = self._one_shape(sh)
                if byte_find.ENABLED:
                    find = byte_find.byte_find(self, sh, find, self._byte_tables) or find
                self.find = find
            else:
                self.find = self.lookup
        return sh

    def _one_shape(self, sh: Shape) -> Callable[[int, Any], tuple[Decision | None, Any]]:
        """``lookup`` for a cache whose only shape is ``sh``, a ``fast`` one: the same arithmetic with
        the shape's constants in local variables (CPython reads those faster than attributes; a
        routed fabric's switches see one shape, and this runs once a packet-hop)."""
        r = sh.region
        shift, hmask, at, weight, cshift = sh.fast  # type: ignore[misc]
        kmask, pmask, gshift = sh.kmask, sh.pmask, sh.update[0][0]
        get = sh.table.get           # the table is only ever cleared in place
        reads_port, reads_length = self.reads_port, self.reads_length
        cache = self
        frame, unjoined_min = Frame, UNJOINED_MIN

        def find(port: int, data: Any) -> tuple[Decision | None, Any]:
            # An unjoined frame (frame.py): its first bytes are ``head``, the rest still in ``base``,
            # which the output shares in turn. A host's head is longer than the region (all its
            # headers over a shared body): the bytes past the region go on in the output's head.
            rest = b""
            if data.__class__ is frame:
                base = data.base
                top = head = data.head       # top: the region's bytes (a switch's head is just that)
                if len(head) != r:
                    if len(head) > r:
                        rest = head[r:]
                    else:
                        base = head = data.join()
                    top = head[:r]
            else:
                base = head = data
                top = data[:r]
            n = len(base)
            if n >= r:
                v = int.from_bytes(top, "big")
                h = (v >> shift) & hmask
                c = head[at] << 8 | head[at + 1]
                s = (h - c * weight) % 0xFFFF
                ok = (s ^ 0xFFFF) == c if s else c == (0xFFFF if h == c << cshift else 0)
                d = get((v & kmask, ok, port if reads_port else 0, n if reads_length else 0))
                if d is not None:
                    cache.hits += 1
                    t = d.template
                    if t is None:
                        return d, None
                    s = (s + d.delta) % 0xFFFF      # as in ``lookup``
                    head = ((v & pmask) | t | ((s ^ 0xFFFF if s else 0) << gshift)).to_bytes(r, "big")
                    if n <= r:
                        return d, head
                    if n < unjoined_min and base is data:
                        return d, head + data[r:]
                    return d, frame(head + rest if rest else head, base)
            cache.misses += 1
            return None, None
        return find

    def lookup(self, port: int, data: Any) -> tuple[Decision | None, bytes | None]:
        """(the decision for ``data`` arriving on ``port``, the bytes it leaves with: None unless the
        decision has a template), or (None, None) on a miss."""
        if data.__class__ is Frame:
            data = data.join()
        n = len(data)
        kp = port if self.reads_port else 0
        kn = n if self.reads_length else 0
        for sh in self.shapes:
            r = sh.region
            if n < r:
                continue
            v = int.from_bytes(data[:r], "big")
            if sh.fast is None:
                d = sh.table.get(sh.key(v, kp, kn))
                if d is None:
                    continue
                self.hits += 1
                t = d.template
                return d, (None if t is None else sh.output(v, t, data))
            # ``verdict``, inline: this runs once per packet-hop
            shift, hmask, at, weight, cshift = sh.fast
            h = (v >> shift) & hmask
            c = data[at] << 8 | data[at + 1]
            s = (h - c * weight) % 0xFFFF
            ok = (s ^ 0xFFFF) == c if s else c == (0xFFFF if h == c << cshift else 0)
            d = sh.table.get((v & sh.kmask, ok, kp, kn))
            if d is None:
                continue
            self.hits += 1
            t = d.template
            if t is None:
                return d, None
            # The header's new sum: the old one less the key bits it came with plus the template's
            # (every packet with this key has the same key bits); never 0 (``store``), so no 0xFFFF case.
            s = (s + d.delta) % 0xFFFF
            head = ((v & sh.pmask) | t | ((s ^ 0xFFFF if s else 0) << sh.update[0][0])).to_bytes(r, "big")
            return d, (head + data[r:] if n > r else head)
        self.misses += 1
        return None, None

    def store(self, sh: Shape, port: int, data: Any, d: Decision) -> None:
        if self.entries >= self.max_entries:
            self.clear()
        v = int.from_bytes(data[:sh.region], "big")
        key = sh.key(v, port if self.reads_port else 0, len(data) if self.reads_length else 0, data)
        t = d.template
        if sh.fast is not None and t is not None and d.delta is None:
            _, shift, hmask = sh.update[0]
            out_key = (t >> shift) & hmask
            if not out_key:
                # a header of zeros but its carried bits could sum to 0 (checksum 0xFFFF, not 0):
                # such a decision is kept for the general arithmetic, under a key lookup never makes
                return
            d.delta = (out_key - (((v & sh.kmask) >> shift) & hmask)) % 0xFFFF
        sh.table[key] = d
        self.entries += 1

    def clear(self) -> None:
        """Forget every decision (a table changed)."""
        for sh in self.shapes:
            sh.table.clear()
        for table in self._byte_tables:
            table.clear()
        self.entries = 0
        self.invalidations += 1
