"""Checksums over columns: field lists packed per packet, csum16 of them.

The packing is BMv2's of a field list (``runtime.pack_fields``): fields MSB
first with no alignment, zero bits padding the end to a byte, and the fields of invalid
headers left out. Packets whose valid fields differ in total width are packed per group.
"""
from __future__ import annotations

import numpy as np

from dataplane.engine.batch.bits import pack_words
from dataplane.engine.batch.values import U64


def csum16_words(words: np.ndarray) -> np.ndarray:
    """RFC 1071 checksum of rows of big-endian words (the data zero-padded at the end, which
    is BMv2's padding of an odd byte); empty or all-zero data gives 0xFFFF.

    2**16 is 1 modulo 0xFFFF, so each word's 16-bit pieces add up to the word modulo 0xFFFF.
    """
    total = np.zeros(words.shape[1], dtype=U64)
    nonzero = np.zeros(words.shape[1], dtype=bool)
    for w in words:
        total += w % U64(0xFFFF)
        nonzero |= w != 0
    folded = total % U64(0xFFFF)
    return np.where(nonzero, np.where(folded == 0, U64(0xFFFF), folded) ^ U64(0xFFFF), U64(0xFFFF))


def csum16_columns(st, data) -> np.ndarray:
    """csum16 of a field list ``[(value fn, width, validity path or None)]`` for every packet."""
    n = st.n
    validities = [v for _, _, v in data if v is not None]
    values = [fn(st, None) for fn, _, _ in data]
    widths = [w for _, w, _ in data]
    if not validities:
        return csum16_words(pack_words(values, widths, n))
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
        if rows.all():
            out = csum16_words(pack_words([values[i] for i in keep], [widths[i] for i in keep], n))
            break
        vals = [np.broadcast_to(np.asarray(values[i], dtype=U64), (n,))[rows] for i in keep]
        out[rows] = csum16_words(pack_words(vals, [widths[i] for i in keep], int(rows.sum())))
    return out
