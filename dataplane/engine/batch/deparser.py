"""The deparser: ``emit`` calls recorded in order with the packets they apply to, then packed
into output rows: each valid header's columns packed back to bytes at the packet's own
offset, the unparsed payload (bytes from the parser's final offset) after them.
"""
from __future__ import annotations

import numpy as np

from dataplane.engine.batch.bits import pack_words, words_to_bytes
from dataplane.engine.batch.refuse import refuse
from dataplane.ir import expr as E
from dataplane.ir import types as T


class DeparserMixin:
    """``packet_out.emit`` for ``BlockCompiler``: appends (fields, widths, validity, mask) to ``st.emits``."""

    def packet_out_call(self, call: E.Call):
        if call.target.member != "emit":
            refuse(call, f"packet_out.{call.target.member}()")
        emits = []
        self._emits_of(call.args[0].value, call, emits)

        def emit(st, act):
            for paths, widths, valid in emits:
                st.emits.append((paths, widths, act & st.cols[valid]))
        return emit

    def _emits_of(self, e, node, out) -> None:
        t = T.strip_newtype(e.type)
        if isinstance(t, T.Header):
            layout = self.program.headers[t.name]
            if any(f.varbit for f in layout.fields):
                refuse(node, f"emit of header {t.name} with a varbit field")
            base = self.path_of(e)
            out.append(([f"{base}.{f.name}" for f in layout.fields], [f.width for f in layout.fields], base + ".$valid"))
            return
        if isinstance(t, T.Struct):
            for f in t.fields:
                self._emits_of(E.Member(expr=e, member=f.name, type=f.type, span=e.span), node, out)
            return
        refuse(node, f"emit of a {type(t).__name__}")


def deparse(st, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(output bytes, output lengths) of every packet after the deparser ran (rows not in ``rows``
    are left as they are and ignored by the caller)."""
    n, win = st.data.shape
    off = np.zeros(n, dtype=np.int64)
    parts = []
    for paths, widths, m in st.emits:
        nb = sum(widths) // 8
        parts.append((paths, widths, m, off.copy(), nb))
        off = off + np.where(m, nb, 0)
    payload = np.maximum(st.lengths - st.pos, 0)
    out_len = off + payload
    shift = off - st.pos
    if not np.any(shift[rows]):
        out = st.data.copy()
    else:
        wout = int(out_len[rows].max()) if rows.any() else 0
        out = np.zeros((n, max(wout, 1)), dtype=np.uint8)
        for d in np.unique(shift[rows]).tolist():
            r = np.flatnonzero(rows & (shift == d))
            lo, hi = max(0, d), min(out.shape[1], win + d)
            if hi <= lo:
                continue
            block = out[r]
            cols = np.arange(lo, hi)[None, :]
            block[:, lo:hi] = np.where(cols >= off[r][:, None], st.data[r][:, lo - d:hi - d], block[:, lo:hi])
            out[r] = block
    for paths, widths, m, at, nb in parts:
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
    return out, out_len
