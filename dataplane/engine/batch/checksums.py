"""Checksums and packing over columns: field lists packed to bytes per packet, csum16 of them.

``pack_bits`` is BMv2's packing of a field list (``runtime.pack_fields``): fields MSB
first with no alignment, zero bits padding the end to a byte, and the fields of invalid
headers left out. Packets whose valid fields differ in total width are packed per group.
"""
from __future__ import annotations

import numpy as np

from dataplane.engine.batch.values import U64


def pack_bits(values: list, widths: list[int], n: int) -> np.ndarray:
    """An ``(n, bytes)`` uint8 array of ``values`` (uint64 columns or scalars) concatenated MSB first."""
    total = sum(widths)
    nbytes = (total + 7) // 8
    out = np.zeros((n, nbytes), dtype=np.uint8)
    offset = 0
    for v, w in zip(values, widths):
        v = np.broadcast_to(np.asarray(v, dtype=U64), (n,))
        end = offset + w
        for b in range(offset // 8, (end - 1) // 8 + 1):
            s = end - (8 * b + 8)
            part = (v >> U64(s)) if s >= 0 else (v << U64(-s))
            out[:, b] |= (part & U64(0xFF)).astype(np.uint8)
        offset = end
    return out


def csum16_bytes(data: np.ndarray) -> np.ndarray:
    """RFC 1071 checksum of each row (odd length padded with a zero byte); empty or all-zero gives 0xFFFF."""
    n, nbytes = data.shape
    if nbytes % 2:
        data = np.concatenate([data, np.zeros((n, 1), dtype=np.uint8)], axis=1)
    words = (data[:, 0::2].astype(U64) << U64(8)) | data[:, 1::2]
    total = words.sum(axis=1, dtype=U64) if words.shape[1] else np.zeros(n, dtype=U64)
    folded = total % U64(0xFFFF)
    folded = np.where(folded == 0, U64(0xFFFF), folded) ^ U64(0xFFFF)
    return np.where(total == 0, U64(0xFFFF), folded)


def csum16_columns(st, data) -> np.ndarray:
    """csum16 of a field list ``[(value fn, width, validity path or None)]`` for every packet."""
    n = st.n
    validities = [v for _, _, v in data if v is not None]
    values = [fn(st, None) for fn, _, _ in data]
    widths = [w for _, w, _ in data]
    if not validities:
        return csum16_bytes(pack_bits(values, widths, n))
    # Fields of invalid headers are left out: pack each pattern of validity on its own.
    names = sorted(set(validities), key=validities.index)
    if len(names) == 1:
        v = st.cols[names[0]]
        groups = [(v, (True,)), (~v, (False,))]
    else:
        valid = np.stack([st.cols[v] for v in names], axis=1)
        patterns, which = np.unique(valid, axis=0, return_inverse=True)
        which = which.reshape(-1)
        groups = [(which == k, tuple(p.tolist())) for k, p in enumerate(patterns)]
    out = np.empty(n, dtype=U64)
    for rows, pattern in groups:
        if not rows.any():
            continue
        present = dict(zip(names, pattern))
        keep = [i for i, (_, _, v) in enumerate(data) if v is None or present[v]]
        vals = [np.broadcast_to(np.asarray(values[i], dtype=U64), (n,))[rows] for i in keep]
        out[rows] = csum16_bytes(pack_bits(vals, [widths[i] for i in keep], int(rows.sum())))
    return out
