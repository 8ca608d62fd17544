"""v1model over batches: simple_switch's block order and packet fates, as the per-packet
``V1ModelSwitch`` has them, for unicast and drop and multicast (copies in the
replication engine's order); clone, resubmit and recirculate are refused when compiled.

``BatchV1Model(dp).run(batch)`` gives a ``BatchOutput``: the outputs in packet order, as arrays, plus the drop reason of each dropped packet (the control layer
turns it into ``PacketResult`` objects: ``Switch.process_batch``).
"""
from __future__ import annotations

import numpy as np

from dataplane.engine.batch.compiler import BatchState, BlockCompiler, kinds
from dataplane.engine.batch.deparser import deparse
from dataplane.engine.batch.layout import PacketBatch
from dataplane.engine.batch.refuse import BatchUnsupported
from dataplane.engine.batch.values import U64, leaves
from dataplane.ir import types as T

DROP_PORT = 511
NORMAL, REPLICATION = 0, 5   # instance types (dataplane.arch.v1model)
CHUNK = 16384
# What each slot's parameters are, in order (None: the packet_in/packet_out parameter).
_ROOTS = {"p": (None, "hdr", "meta", "sm"), "vr": ("hdr", "meta"), "ig": ("hdr", "meta", "sm"),
          "eg": ("hdr", "meta", "sm"), "ck": ("hdr", "meta"), "dep": (None, "hdr")}
DROP_REASONS = ("", "dropped in ingress (egress_spec = 511)", "dropped in egress (mark_to_drop)")


class BatchOutput:
    """What a batch of ``inputs`` packets produced. Per output, in packet order (a packet's
    copies in replication order): ``ports``, ``data`` (rows), ``lengths``, ``source`` (its
    input packet) and ``itype`` (instance type). Per drop, in packet order: ``drop_source``
    and ``drop_code`` (an index into ``DROP_REASONS``)."""

    __slots__ = ("inputs", "ports", "data", "lengths", "source", "itype", "drop_source", "drop_code", "in_place")

    def __init__(self, inputs, ports, data, lengths, source, itype, drop_source, drop_code, in_place=False):
        self.inputs, self.ports, self.data, self.lengths = inputs, ports, data, lengths
        self.source, self.itype, self.drop_source, self.drop_code = source, itype, drop_source, drop_code
        # One output per input, in order, with its input's length, written over the input's
        # rows (``run_chunks(..., scratch=True)``): the input's own bytes where nothing changed.
        self.in_place = in_place

    def __len__(self) -> int:
        return len(self.ports)


class BatchV1Model:
    """A v1model switch's program compiled for batches; tables, counters and clock are the switch's."""

    def __init__(self, dp):
        program = dp.program
        if program.architecture != "v1model":
            raise BatchUnsupported(f"{program.source}: architecture {program.architecture} "
                                   "(the batch engine runs v1model programs)")
        self.dp = dp
        self.snapshots: dict = {}
        blocks = {}
        for slot, name in program.package.blocks:
            block = program.parsers.get(name) or program.controls[name]
            roots = {p.name: r for p, r in zip(block.params, _ROOTS[slot]) if r is not None}
            blocks[slot] = BlockCompiler(program, block, roots, dp.tables, dp.instances, self.snapshots)
        parser = program.parsers[dict(program.package.blocks)["p"]]
        self.columns = (leaves(parser.params[1].type, "hdr", parser) + leaves(parser.params[2].type, "meta", parser)
                        + leaves(_sm_type(program), "sm", parser))
        self.column_kinds = kinds(self.columns)
        self.parser_block = blocks["p"]
        self.parser = blocks["p"].compile_parser(parser)
        self.controls = {s: blocks[s].compile_control() for s in ("vr", "ig", "eg", "ck", "dep")}

    def run_chunks(self, batch: PacketBatch, scratch: bool = False):
        """``(first packet, BatchOutput)`` per chunk of ``CHUNK`` packets, in order: columns that
        fit the CPU's caches with few numpy calls per packet (measured on this 2-core machine,
        CPU time: 16,384 packets ran the router 1.2-1.5x, the 100k-route LPM table 1.34x and
        three ternary tables 1.26x as fast per packet as 4,096, and 65,536 no faster), and no
        copy of the outputs into one array.

        ``scratch``: ``batch.data`` is the caller's to give away; outputs may be written into it
        (``BatchOutput.in_place`` says when they all were)."""
        n = len(batch)
        if n <= CHUNK:
            yield 0, self._run(batch, scratch)
            return
        for s in range(0, n, CHUNK):
            yield s, self._run(PacketBatch(batch.data[s:s + CHUNK], batch.lengths[s:s + CHUNK],
                                           batch.ports[s:s + CHUNK]), scratch)

    def run(self, batch: PacketBatch) -> BatchOutput:
        """Run ``batch``; one ``BatchOutput`` for all of it (``run_chunks`` without the joining)."""
        parts = list(self.run_chunks(batch))
        if len(parts) == 1:
            return parts[0][1]
        width = max(p.data.shape[1] for _, p in parts)
        if all(p.data.shape[1] == width for _, p in parts):
            data = np.concatenate([p.data for _, p in parts])
        else:
            data = np.zeros((sum(len(p) for _, p in parts), width), dtype=np.uint8)
            at = 0
            for _, p in parts:
                data[at:at + len(p), :p.data.shape[1]] = p.data
                at += len(p)
        return BatchOutput(len(batch), np.concatenate([p.ports for _, p in parts]), data,
                           np.concatenate([p.lengths for _, p in parts]),
                           np.concatenate([p.source + s for s, p in parts]),
                           np.concatenate([p.itype for _, p in parts]),
                           np.concatenate([p.drop_source + s for s, p in parts]),
                           np.concatenate([p.drop_code for _, p in parts]))

    def _run(self, batch: PacketBatch, scratch: bool = False) -> BatchOutput:
        n = len(batch)
        st = BatchState(batch.data, batch.lengths, scratch)
        st.init(self.column_kinds)
        c = st.cols
        c["sm.ingress_port"] = batch.ports.astype(U64)
        c["sm.packet_length"] = batch.lengths.astype(U64)
        c["sm.ingress_global_timestamp"] = np.full(n, self.dp.now_us, dtype=U64)
        everyone = np.ones(n, dtype=bool)
        self.parser_block.start(st, everyone)
        self.parser(st)
        st.exited = None
        ctl = self.controls
        ctl["vr"](st, everyone)
        ctl["ig"](st, everyone)
        # End of ingress: multicast (mark_to_drop clears the group), else drop on 511, else unicast.
        group = c["sm.mcast_grp"]
        multicast = group != 0
        unicast = ~multicast & (c["sm.egress_spec"] != DROP_PORT)
        ingress_drops = np.flatnonzero(~multicast & ~unicast)
        if multicast.any():
            take, port, rid, itype = self._replicate(st, group, multicast, unicast)
            for path in list(c):   # the same values on the copies: not assignments
                dict.__setitem__(c, path, c[path][take])
            st.reindex(take)
            c["sm.egress_rid"] = np.where(itype == REPLICATION, rid, c["sm.egress_rid"])
            alive = np.ones(len(take), dtype=bool)
        else:
            take, alive = None, unicast
            port = c["sm.egress_spec"]
            itype = np.zeros(n, dtype=U64)
        # Egress: egress_port is the port, egress_spec reads 0 (BMv2's drop port + 1 in 9 bits).
        out_port = port.astype(np.int64)   # writes in egress do not move the packet
        c["sm.egress_port"] = np.where(alive, port, c["sm.egress_port"])
        c["sm.egress_spec"] = np.where(alive, U64(0), c["sm.egress_spec"])
        c["sm.instance_type"] = np.where(alive, itype, c["sm.instance_type"])
        c["sm.egress_global_timestamp"] = np.where(alive, U64(self.dp.now_us), c["sm.egress_global_timestamp"])
        ctl["eg"](st, alive)
        dropped = alive & (c["sm.egress_spec"] == DROP_PORT)
        alive &= ~dropped
        ctl["ck"](st, alive)
        ctl["dep"](st, alive)
        data, lengths = deparse(st, alive)
        rows = np.flatnonzero(alive)
        if len(rows) == len(alive):   # everyone leaves: no copies of the output arrays
            rows = slice(None)
        egress_drops = np.flatnonzero(dropped)
        source = (np.arange(len(alive)) if isinstance(rows, slice) else rows) if take is None else take[rows]
        drop_source = np.concatenate([ingress_drops, egress_drops if take is None else take[egress_drops]])
        drop_code = np.concatenate([np.ones(len(ingress_drops), np.int8), np.full(len(egress_drops), 2, np.int8)])
        order = np.argsort(drop_source, kind="stable")
        in_place = take is None and isinstance(rows, slice) and data is batch.data \
            and np.array_equal(lengths, batch.lengths)
        return BatchOutput(n, out_port[rows], data[rows], lengths[rows], source,
                           itype[rows].astype(np.int64), drop_source[order], drop_code[order], in_place)

    def _replicate(self, st, group, multicast, unicast):
        """Copies for egress, in packet order, each packet's in the order BMv2's replication engine
        makes them: (source row of each copy, egress port, rid, instance type)."""
        n = st.n
        counts = unicast.astype(np.int64)
        replicas = {}
        for g in np.unique(group[multicast]).tolist():
            replicas[g] = list(self.dp._replicas(g))
            counts[multicast & (group == g)] = len(replicas[g])
        take = np.repeat(np.arange(n), counts)
        k = np.arange(len(take)) - np.repeat(np.cumsum(counts) - counts, counts)   # copy index in its packet
        g_of = group[take]
        port = np.where(g_of == 0, st.cols["sm.egress_spec"][take], U64(0))
        rid = np.zeros(len(take), dtype=U64)
        for g, reps in replicas.items():
            if not reps:
                continue
            sel = g_of == g
            port = np.where(sel, np.array([p for _, p in reps], dtype=U64)[k * sel], port)
            rid = np.where(sel, np.array([r for r, _ in reps], dtype=U64)[k * sel], rid)
        itype = np.where(g_of == 0, U64(NORMAL), U64(REPLICATION))
        return take, port, rid, itype


def _sm_type(program):
    t = program.types.get("standard_metadata_t")
    if not isinstance(T.strip_newtype(t), T.Struct):
        raise BatchUnsupported(f"{program.source}: no standard_metadata_t")
    return t
