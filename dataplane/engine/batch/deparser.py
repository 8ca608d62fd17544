"""The deparser: ``emit`` calls recorded in order with the packets they apply to, then turned
into output rows.

A packet whose valid headers are emitted exactly where the parser found them (the same
headers, in the same order, the payload where it was: a router's packets) is its input
bytes with only the assigned fields written back (``Columns.written``); measured on the
router, several times cheaper than packing every field. Other packets (a header added or
removed) are packed: each valid header's columns packed back to bytes at the packet's own
offset, the unparsed payload (bytes from the parser's final offset) after them.
"""
from __future__ import annotations

import numpy as np

from dataplane.engine.batch.bits import pack_words, words_to_bytes
from dataplane.engine.batch.columns import write_field
from dataplane.engine.batch.refuse import refuse
from dataplane.ir import expr as E
from dataplane.ir import types as T


class DeparserMixin:
    """``packet_out.emit`` for ``BlockCompiler``: appends (header, fields, widths, mask) to ``st.emits``."""

    def packet_out_call(self, call: E.Call):
        if call.target.member != "emit":
            refuse(call, f"packet_out.{call.target.member}()")
        emits = []
        self._emits_of(call.args[0].value, call, emits)

        def emit(st, act):
            for base, paths, widths in emits:
                st.emits.append((base, paths, widths, act & st.cols[base + ".$valid"]))
        return emit

    def _emits_of(self, e, node, out) -> None:
        t = T.strip_newtype(e.type)
        if isinstance(t, T.Header):
            layout = self.program.headers[t.name]
            if any(f.varbit for f in layout.fields):
                refuse(node, f"emit of header {t.name} with a varbit field")
            base = self.path_of(e)
            out.append((base, [f"{base}.{f.name}" for f in layout.fields], [f.width for f in layout.fields]))
            return
        if isinstance(t, T.Struct):
            for f in t.fields:
                self._emits_of(E.Member(expr=e, member=f.name, type=f.type, span=e.span), node, out)
            return
        refuse(node, f"emit of a {type(t).__name__}")


def deparse(st, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(output bytes, output lengths) of every packet after the deparser ran (rows not in ``rows``
    are left as they are and ignored by the caller)."""
    n = st.n
    off = np.zeros(n, dtype=np.int64)
    parts = []
    for base, paths, widths, m in st.emits:
        nb = sum(widths) // 8
        parts.append((base, paths, widths, m, off, nb))
        off = off + np.where(m, nb, 0)
    payload = np.maximum(st.lengths - st.pos, 0)
    out_len = off + payload
    shift = off - st.pos
    in_place = rows & (shift == 0)
    for base, _, _, m, at, _ in parts:
        if in_place.any():
            origin = st.origin.get(base, -1)
            in_place &= ~m | (at == origin)
    packed = rows & ~in_place
    if packed.any():
        out = _packed(st, packed, parts, off, shift, in_place)
    else:
        out = st.data if st.scratch else st.data.copy()
    if in_place.any():
        _write_assigned(st, out, in_place, parts)
    return out, out_len


def _write_assigned(st, out: np.ndarray, in_place: np.ndarray, parts) -> None:
    """Rows ``in_place`` of ``out`` hold their input bytes: write the fields assigned since
    extraction (a header with a field over more than 8 bytes is packed whole)."""
    written = st.cols.written
    for _, paths, widths, m, at, nb in parts:
        if not any(p in written for p in paths):
            continue
        m = m & in_place
        if not m.any():
            continue
        starts = at[m]
        lo = int(starts.min())
        for start in [lo] if lo == starts.max() else np.unique(starts).tolist():
            sel = m if start == lo and len(starts) == len(m) and lo == starts.max() else m & (at == start)
            r = slice(None) if sel.all() else np.flatnonzero(sel)
            bit = 8 * start
            for p, w in zip(paths, widths):
                if p in written and not write_field(out, r, bit, w, st.cols[p]):
                    raw = words_to_bytes(pack_words([st.cols[q] for q in paths], widths, st.n), nb)
                    out[r, start:start + nb] = raw[r]
                    break
                bit += w


def _packed(st, rows: np.ndarray, parts, hdr_end: np.ndarray, shift: np.ndarray, in_place: np.ndarray) -> np.ndarray:
    """Output rows for ``rows``, each valid header packed from its columns, the payload moved
    after them; rows ``in_place`` get their input bytes."""
    n, win = st.data.shape
    if not np.any(shift[rows]):
        out = st.data.copy()
    else:
        wout = int((hdr_end + np.maximum(st.lengths - st.pos, 0))[rows].max())
        if in_place.any():
            wout = max(wout, win)
        out = np.zeros((n, max(wout, 1)), dtype=np.uint8)
        if in_place.any():
            out[in_place, :win] = st.data[in_place]
        for d in np.unique(shift[rows]).tolist():
            r = np.flatnonzero(rows & (shift == d))
            lo, hi = max(0, d), min(out.shape[1], win + d)
            if hi <= lo:
                continue
            block = out[r]
            cols = np.arange(lo, hi)[None, :]
            block[:, lo:hi] = np.where(cols >= hdr_end[r][:, None], st.data[r][:, lo - d:hi - d], block[:, lo:hi])
            out[r] = block
    for _, paths, widths, m, at, nb in parts:
        m = m & rows
        if not m.any():
            continue
        raw = words_to_bytes(pack_words([st.cols[p] for p in paths], widths, n), nb)
        r = np.flatnonzero(m)
        starts = at[r]
        if starts.min() == starts.max():
            s = int(starts[0])
            if len(r) == n:
                out[:, s:s + nb] = raw
            else:
                out[r, s:s + nb] = raw[r]
        else:
            out[r[:, None], starts[:, None] + np.arange(nb)[None, :]] = raw[r]
    return out
