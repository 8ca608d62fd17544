"""Bit packing between columns and bytes through big-endian 64-bit words.

A header (or a field list) of ``nbits`` is ``ceil(nbits / 64)`` words, MSB first, zero bits
at the end: fields go in and out of words with a shift or two each, and words turn into
bytes (and back) with one byte-order view, instead of one operation per byte.
"""
from __future__ import annotations

import numpy as np

from dataplane.engine.batch.values import U64, mask

_BE = np.dtype(">u8")


def pack_words(values: list, widths: list[int], n: int) -> list[np.ndarray]:
    """Words of ``values`` (columns or scalars) concatenated MSB first, zero-padded at the end:
    a list of ``n``-long uint64 columns, one per word."""
    total = sum(widths)
    nwords = max(1, (total + 63) // 64)
    words = [None] * nwords
    offset = 0
    for v, w in zip(values, widths):
        end = offset + w
        first, last = offset // 64, (end - 1) // 64
        for k in range(first, last + 1):
            s = end - 64 * (k + 1)   # how far the field's end lies past the word's end
            part = (v >> U64(s)) if s > 0 else ((v << U64(-s)) if s < 0 else v)
            words[k] = part if words[k] is None else (words[k] | part)
        offset = end
    zero = np.zeros(n, dtype=U64)
    return [zero if wv is None else (wv if getattr(wv, "shape", None) == (n,) else np.broadcast_to(wv, (n,)))
            for wv in words]


def words_to_bytes(words: list[np.ndarray], nbytes: int) -> np.ndarray:
    """``(n, nbytes)`` uint8: the first ``nbytes`` bytes of each packet's words."""
    n = len(words[0])
    out = np.empty((n, len(words)), dtype=_BE)
    for k, w in enumerate(words):
        out[:, k] = w
    return out.view(np.uint8).reshape(n, -1)[:, :nbytes]


def bytes_to_words(raw: np.ndarray, nbytes: int) -> list[np.ndarray]:
    """The first ``nbytes`` of each row of ``raw`` as big-endian words, one native uint64 column
    per word. Bytes past ``nbytes`` in the last word may be anything: fields never read them.
    ``raw`` must have at least ``8 * words`` columns with a contiguous last axis."""
    nwords = max(1, (nbytes + 7) // 8)
    view = raw[:, :nwords * 8].view(_BE)
    return [view[:, k].astype(U64) for k in range(nwords)]


def field_from_words(words: np.ndarray, offset: int, width: int) -> np.ndarray:
    """The ``width``-bit field at bit ``offset`` of rows of big-endian words."""
    end = offset + width
    first, last = offset // 64, (end - 1) // 64
    m = U64(mask(width))
    s = 64 * (last + 1) - end
    low = words[last] >> U64(s) if s else words[last]
    if first == last:
        return low & m if width < 64 else low
    high = words[first] << U64(64 - s)
    return (high | low) & m
