"""Bit packing between columns and bytes through big-endian 64-bit words.

A header (or a field list) of ``nbits`` is ``ceil(nbits / 64)`` words, MSB first, zero bits
at the end: fields go in and out of words with a shift or two each, and words turn into
bytes (and back) with one byte-order view, instead of one operation per byte.
"""
from __future__ import annotations

import numpy as np

from dataplane.engine.batch.values import U64, mask

_BE = np.dtype(">u8")


def pack_words(values: list, widths: list[int], n: int) -> np.ndarray:
    """``(words, n)`` uint64: ``values`` (columns or scalars) concatenated MSB first, zero-padded at the end.

    Words are rows (one contiguous column of packets each), so a field's word is a fast slice.
    """
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
    out = np.zeros((nwords, n), dtype=U64)
    for k, wv in enumerate(words):
        if wv is not None:
            out[k] = wv
    return out


def words_to_bytes(words: np.ndarray, nbytes: int) -> np.ndarray:
    """The first ``nbytes`` bytes of each row of big-endian words."""
    n = words.shape[1]
    return np.ascontiguousarray(words.T, dtype=_BE).view(np.uint8).reshape(n, -1)[:, :nbytes]


def bytes_to_words(raw: np.ndarray) -> np.ndarray:
    """``(n, nbytes)`` uint8 to ``(words, n)`` native uint64, big-endian, zero-padded at the end."""
    n, nbytes = raw.shape
    nwords = max(1, (nbytes + 7) // 8)
    buf = np.zeros((n, nwords * 8), dtype=np.uint8)
    buf[:, :nbytes] = raw
    return np.ascontiguousarray(buf.view(_BE).T, dtype=U64)


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
