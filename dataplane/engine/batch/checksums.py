"""Checksums and hashes over columns: field lists packed per packet, then csum16, CRC-16,
CRC-32, xor16 or identity of them, as ``dataplane.engine.hashes`` computes them.

The packing is BMv2's of a field list (``runtime.pack_fields``): fields MSB
first with no alignment, zero bits padding the end to a byte, and the fields of invalid
headers left out. Packets whose valid fields differ in total width are packed per group.
"""
from __future__ import annotations

import numpy as np

from dataplane.engine.batch.bits import pack_words, words_to_bytes
from dataplane.engine.batch.columns import read_bytes
from dataplane.engine.batch.values import U64
from dataplane.engine.hashes import reflected_table


def csum16_words(words: np.ndarray) -> np.ndarray:
    """RFC 1071 checksum of rows of big-endian words (the data zero-padded at the end, which
    is BMv2's padding of an odd byte); empty or all-zero data gives 0xFFFF.

    2**16 is 1 modulo 0xFFFF, so each word's 16-bit pieces add up to the word modulo 0xFFFF.
    """
    # 2**32 is 1 modulo 0xFFFF too: fold each word's halves, one remainder at the end.
    low = U64(0xFFFFFFFF)
    total = None
    nonzero = None
    for w in words:
        part = (w & low) + (w >> U64(32))
        total = part if total is None else total + part
        nz = w != 0
        nonzero = nz if nonzero is None else nonzero | nz
    folded = total % U64(0xFFFF)
    return np.where(nonzero, np.where(folded == 0, U64(0xFFFF), folded) ^ U64(0xFFFF), U64(0xFFFF))


# the per-packet engine's tables (hashes.py), so both engines' CRCs come from one definition
_CRC16 = np.array(reflected_table(16, 0x8005), dtype=U64)       # CRC-16/ARC
_CRC32 = np.array(reflected_table(32, 0x04C11DB7), dtype=U64)   # CRC-32


def _crc(words: np.ndarray, nbytes: int, table: np.ndarray, init: int, xor_out: int) -> np.ndarray:
    data = words_to_bytes(words, nbytes)
    crc = np.full(len(words[0]), init, dtype=U64)
    ff = U64(0xFF)
    for b in range(nbytes):
        crc = table[((crc ^ data[:, b]) & ff).astype(np.intp)] ^ (crc >> U64(8))
    return crc ^ U64(xor_out)


def _xor16(words: np.ndarray, nbytes: int) -> np.ndarray:
    x = np.zeros(len(words[0]), dtype=U64)
    for w in words:
        x ^= w
    x ^= x >> U64(32)
    x ^= x >> U64(16)
    return x & U64(0xFFFF)


def _identity(words: np.ndarray, nbytes: int) -> np.ndarray:
    """The first (at most) 8 bytes as a big-endian number."""
    if nbytes >= 8:
        return words[0].copy()
    return words[0] >> U64(64 - 8 * nbytes) if nbytes else np.zeros(len(words[0]), dtype=U64)


# v1model HashAlgorithm members the batch engine computes, as functions of (words, byte count).
# The per-packet engine's crc16_custom and crc32_custom are crc16 and crc32 (hashes.py).
ALGORITHMS = {
    "csum16": lambda words, nbytes: csum16_words(words),
    "crc16": lambda words, nbytes: _crc(words, nbytes, _CRC16, 0, 0),
    "crc16_custom": lambda words, nbytes: _crc(words, nbytes, _CRC16, 0, 0),
    "crc32": lambda words, nbytes: _crc(words, nbytes, _CRC32, 0xFFFFFFFF, 0xFFFFFFFF),
    "crc32_custom": lambda words, nbytes: _crc(words, nbytes, _CRC32, 0xFFFFFFFF, 0xFFFFFFFF),
    "xor16": _xor16,
    "identity": _identity,
}


def hash_columns(st, data, algorithm: str) -> np.ndarray:
    """``algorithm`` over a field list ``[(value fn, width, validity path or None)]``, per packet."""
    fn = ALGORITHMS[algorithm]

    def run(values, widths, n):
        return fn(pack_words(values, widths, n), (sum(widths) + 7) // 8)
    return _per_validity(st, data, run)


def csum16_columns(st, data) -> np.ndarray:
    """csum16 of a field list ``[(value fn, width, validity path or None)]`` for every packet."""
    return _per_validity(st, data, lambda values, widths, n: csum16_words(pack_words(values, widths, n)))


def csum16_plan(data, places=None):
    """csum16 without packing, for a field list whose fields share one validity: the data cut
    at 16-bit boundaries (counted from its zero-padded end) that no field crosses, each piece
    (at most 64 bits) a number built from its fields, the pieces' halves added (2**16 and
    2**32 are 1 modulo 0xFFFF). The sum is zero exactly when the data is. None otherwise.

    ``places`` (one per field: (header path, bit offset in the header, column path), or None)
    lets consecutive pieces that are whole bytes of one header, in the header's order, be
    read as one number from the packet bytes when that header sits at one offset in every
    packet and none of their fields was assigned (``Columns``): a few reads instead of a
    column per field."""
    valid = {v for _, _, v in data}
    if len(valid) > 1 or not data:
        return None
    valid_path = valid.pop()
    total = sum(w for _, w, _ in data)
    end_all = -(-total // 16) * 16
    pieces, current, offset = [], [], 0
    for i, (fn, w, _) in enumerate(data):
        current.append((fn, offset, w, i))
        offset += w
        if offset % 16 == 0:
            pieces.append((current, offset))
            current = []
    if current:
        pieces.append((current, end_all))
    runs: list = []     # [source in the bytes or None, pieces]
    for fields, end in pieces:
        if end - fields[0][1] > 64:
            return None
        piece = ([(fn, U64(end - o - w)) for fn, o, w, _ in fields], end - fields[0][1] > 32)
        src = _bytes_of(fields, end, places)
        last = runs[-1] if runs else None
        if (src is not None and last is not None and last[0] is not None and last[0][0] == src[0]
                and last[0][1] + last[0][2] == src[1] and last[0][2] + src[2] <= 64):
            last[0] = (src[0], last[0][1], last[0][2] + src[2], last[0][3] | src[3])
            last[1].append(piece)
        else:
            runs.append([src, [piece]])
    low, m16, s16 = U64(0xFFFFFFFF), U64(0xFFFF), U64(16)
    # The largest sum: a piece (or a run read from the bytes) is below 2**32, or below 2**33
    # once its halves are added; then the largest value after each fold, until 16 bits.
    top = sum(max(sum(2 << 32 if wide else 1 << 32 for _, wide in r[1]),
                  (2 << 32 if r[0][2] > 32 else 1 << 32) if r[0] is not None else 0) for r in runs)
    folds = 0
    while top > 0xFFFF:
        k = top >> 16
        top = max(0xFFFF + k - 1, (top & 0xFFFF) + k)
        folds += 1

    def run(st):
        acc = None
        written = st.cols.written
        for src, run_pieces in runs:
            if src is not None:
                at = st.origin.get(src[0])
                if isinstance(at, int) and written.isdisjoint(src[3]):
                    v = read_bytes(st.data, at + src[1] // 8, src[2] // 8)
                    if src[2] > 32:
                        v = (v & low) + (v >> U64(32))
                    acc = v if acc is None else acc + v
                    continue
            for fields, wide in run_pieces:
                piece = None
                for fn, sh in fields:
                    v = fn(st, None)
                    v = v << sh if sh else v
                    piece = v if piece is None else piece | v
                if wide:
                    piece = (piece & low) + (piece >> U64(32))
                acc = piece if acc is None else acc + piece
        # End-around carries down to 16 bits: 0 for a zero sum, else the sum modulo 0xFFFF
        # with 0xFFFF for 0, so its complement is the csum16 (0xFFFF for all-zero data).
        for _ in range(folds):
            acc = (acc & m16) + (acc >> s16)
        out = np.broadcast_to(acc ^ m16, (st.n,))
        if valid_path is not None:
            out = np.where(st.cols[valid_path], out, U64(0xFFFF))   # no valid field: empty data
        return out
    return run


def _bytes_of(fields, end: int, places):
    """(header path, first bit, bits, column paths) when the piece ``fields`` is whole bytes of
    one header in its order with no padding; else None."""
    if places is None or end != fields[-1][1] + fields[-1][2]:
        return None
    got = [places[i] for _, _, _, i in fields]
    if any(p is None for p in got) or len({p[0] for p in got}) != 1 or got[0][1] % 8:
        return None
    bit = got[0][1]
    for (_, _, w, _), p in zip(fields, got):
        if p[1] != bit:
            return None
        bit += w
    return (got[0][0], got[0][1], bit - got[0][1], frozenset(p[2] for p in got))


def _per_validity(st, data, fn) -> np.ndarray:
    n = st.n
    validities = [v for _, _, v in data if v is not None]
    values = [fn(st, None) for fn, _, _ in data]
    widths = [w for _, w, _ in data]
    if not validities:
        return fn(values, widths, n)
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
            out = fn([values[i] for i in keep], [widths[i] for i in keep], n)
            break
        vals = [np.broadcast_to(np.asarray(values[i], dtype=U64), (n,))[rows] for i in keep]
        out[rows] = fn(vals, [widths[i] for i in keep], int(rows.sum()))
    return out
