"""Tables as vectorised lookups over a snapshot of their entries.

A snapshot turns a table's installed entries into sorted numpy arrays, rebuilt when the
entries or the default action change (``MatchTable.version``). Keys are packed into
64-bit words per packet (``WordIndex``; an lpm key must fit one word). Semantics are the per-packet
engine's (``dataplane.engine.tables``):

* exact: one sorted array, ``searchsorted``.
* lpm (plus exact fields): the key space cut into intervals, each owned by its longest prefix.
* ternary, range, optional: the matching entry with the smallest ``(-priority, slot)``
  wins, the order ``PriorityStructure`` keeps; entries without ranges are grouped by mask
  (one sorted array of masked values each), entries with ranges are tested one by one.

The lookup gives each packet an entry index; index ``len(entries)`` is the default action.
"""
from __future__ import annotations

import numpy as np

from dataplane.engine.batch.bits import pack_words
from dataplane.engine.batch.refuse import BatchUnsupported
from dataplane.engine.batch.values import U64

NO_RANK = np.iinfo(np.int64).max


class Snapshot:
    """One table's entries as arrays: lookups by packed key, each entry's action and arguments."""

    def __init__(self, rt, action_names: list[str], param_widths: dict[str, list[int]]):
        self.version = rt.match.version
        self.default = rt.default
        self.entries = [e.value for e in rt.match.entries()]
        raw = rt.match.entries()
        n = len(raw)
        self.size = n
        values = self.entries + [rt.default]
        index = {a: i for i, a in enumerate(action_names)}
        self.action_ids = np.array([index[v.name] for v in values], dtype=np.int64)
        # Per action, per data parameter: the argument of every entry (0 where another action runs).
        self.args: dict[str, list[np.ndarray]] = {}
        for a in action_names:
            widths = param_widths.get(a, [])
            cols = [np.zeros(n + 1, dtype=U64) for _ in widths]
            for i, v in enumerate(values):
                if v.name == a:
                    for j, x in enumerate(v.args):
                        cols[j][i] = int(x) & ((1 << widths[j]) - 1)   # a signed argument as its bits
            self.args[a] = cols
        layout = rt.match.layout
        self.kind = rt.match.structure
        self.widths = [w for _, w in layout]
        self.nwords = max(1, (sum(self.widths) + 63) // 64)
        if self.kind == "exact":
            self.exact = WordIndex(_words([_pack(e.key, layout) for e in raw], self.widths), np.arange(n))
        elif self.kind == "lpm":
            self._build_lpm(raw, layout)
        else:
            self._build_priority(raw, layout, rt.match._structure)

    # ---- lpm ------------------------------------------------------------------------------------
    def _build_lpm(self, raw, layout) -> None:
        """Prefixes (with the exact fields above them) nest or are disjoint, so the key space
        cuts into intervals, each with one longest matching entry: a lookup is one
        ``searchsorted`` over the interval starts, whatever the number of prefix lengths."""
        li = next(i for i, (k, _) in enumerate(layout) if k == "lpm")
        lw = layout[li][1]
        widths = [w for j, (_, w) in enumerate(layout) if j != li] + [lw]
        starts, ends, plens = [], [], []
        for e in raw:
            value, plen = e.key[li]
            rest = [k for j, k in enumerate(e.key) if j != li]
            s = _pack_ints(rest + [value], widths)
            starts.append(s)
            ends.append(s | ((1 << (lw - plen)) - 1))
            plens.append(plen)
        top = (1 << sum(widths)) - 1
        bounds = sorted({0, *starts, *(e + 1 for e in ends if e < top)})
        b = np.array(bounds, dtype=U64)
        owner = np.full(len(b), n_miss := len(raw), dtype=np.int64)
        s_arr, e_arr = np.array(starts, dtype=U64), np.array(ends, dtype=U64)
        p_arr = np.array(plens, dtype=np.int64)
        for plen in sorted(set(plens)):          # shortest first: longer prefixes paint over them
            sel = np.flatnonzero(p_arr == plen)
            lo = np.searchsorted(b, s_arr[sel], side="left")
            hi = np.searchsorted(b, e_arr[sel], side="right")
            counts = hi - lo
            at = np.repeat(lo - np.cumsum(counts) + counts, counts) + np.arange(int(counts.sum()))
            owner[at] = np.repeat(sel, counts)
        self.bounds, self.owner = b, owner
        self.lpm_index = li
        self.lpm_widths = widths
        del n_miss

    # ---- priority --------------------------------------------------------------------------------
    def _build_priority(self, raw, layout, structure) -> None:
        order = sorted(range(len(raw)), key=lambda i: raw[i]._order)
        rank = np.empty(len(raw), dtype=np.int64)
        rank[order] = np.arange(len(raw))
        self.rank_to_index = np.append(np.array(order, dtype=np.int64), len(raw))
        widths = [w for _, w in layout]
        groups: dict[int, dict[int, int]] = {}
        self.ranged = []   # (mask words, value words, ((field, lo, hi), ...), rank)
        for i, e in enumerate(raw):
            masks, values, ranges = structure._shape(e.key)
            pm, pv = _pack_ints(list(masks), widths), _pack_ints(list(values), widths)
            if ranges:
                self.ranged.append((_words([pm], widths)[:, 0], _words([pv & pm], widths)[:, 0], ranges, int(rank[i])))
                continue
            best = groups.setdefault(pm, {})
            v = pv & pm
            if v not in best or rank[i] < best[v]:
                best[v] = int(rank[i])
        self.groups = []
        for pm, best in groups.items():
            index = WordIndex(_words(list(best), widths), np.array(list(best.values()), dtype=np.int64))
            self.groups.append((min(best.values()), _words([pm], widths)[:, 0], index))
        # Best group first: once every packet has an entry better than the next group's best,
        # the rest cannot win (the per-packet engine stops the same way).
        self.groups.sort(key=lambda g: g[0])
        self.ranged.sort(key=lambda r: r[3])

    # ---- lookup ----------------------------------------------------------------------------------
    def lookup(self, fields: list[np.ndarray], layout, n: int) -> np.ndarray:
        """Each packet's entry index (``size`` for a miss) for key columns ``fields`` of ``n`` packets."""
        if self.size == 0 or not fields:
            return np.full(n, self.size, dtype=np.int64)
        if self.kind == "lpm":
            li = self.lpm_index
            k = _pack_cols([f for j, f in enumerate(fields) if j != li] + [fields[li]], self.lpm_widths)
            return self.owner[np.searchsorted(self.bounds, k, side="right") - 1]
        words = pack_words(fields, self.widths, n)
        if self.kind == "exact":
            return self.exact.find(words, self.size)
        best = np.full(n, len(self.rank_to_index) - 1, dtype=np.int64)
        for top, m, index in self.groups:
            if top > best.max():
                break
            best = np.minimum(best, index.find([w & mk for w, mk in zip(words, m)], NO_RANK))
        for m, v, ranges, r in self.ranged:
            if r > best.max():
                break
            ok = np.ones(n, dtype=bool)
            for w, mk, vk in zip(words, m, v):
                ok &= (w & mk) == vk
            for j, lo, hi in ranges:
                ok &= (fields[j] >= U64(lo)) & (fields[j] <= U64(hi))
            best = np.where(ok & (r < best), r, best)
        return self.rank_to_index[best]


class WordIndex:
    """Keys of one or more 64-bit words (a ``(words, entries)`` array) to payloads.

    One word: ``searchsorted`` over the sorted keys. More: the words are mixed into one 64-bit
    hash, searched the same way, and the candidate's words compared with the packet's (so a
    hash collision between a packet and an entry is no match); if two entries' hashes
    collide, each word is numbered among the entries' values of that word instead and the
    numbers combine into one code (a mixed-radix number).
    """

    def __init__(self, keys: np.ndarray, payload: np.ndarray):
        self.multi = len(keys) > 1
        payload = np.asarray(payload, dtype=np.int64)
        if not self.multi:
            self.keys, self.payload = _sorted(keys[0], payload)
            return
        h = _mix(list(keys))
        self.hashed = len(np.unique(h)) == len(h)
        if self.hashed:
            o = np.argsort(h, kind="stable")
            self.keys, self.payload, self.words = h[o], payload[o], [w[o] for w in keys]
            return
        self.values = [np.unique(w) for w in keys]
        radix = 1
        for v in self.values:
            radix *= max(1, len(v))
        if radix >= 1 << 62:
            raise BatchUnsupported("a table key with too many distinct words to index")
        codes = self._codes(keys)[0]
        self.keys, self.payload = _sorted(codes, payload)

    def _codes(self, words) -> tuple[np.ndarray, np.ndarray]:
        code = np.zeros(len(words[0]), dtype=np.int64)
        found = np.ones(len(words[0]), dtype=bool)
        for w, values in zip(words, self.values):
            if len(values) == 0:
                return code, np.zeros_like(found)
            pos = np.minimum(np.searchsorted(values, w), len(values) - 1)
            found &= values[pos] == w
            code = code * len(values) + pos
        return code, found

    def find(self, words, miss: int) -> np.ndarray:
        if not self.multi:
            return _find((self.keys, self.payload), words[0], miss)
        if self.hashed:
            if len(self.keys) == 0:
                return np.full(len(words[0]), miss, dtype=np.int64)
            h = _mix(words)
            pos = np.minimum(np.searchsorted(self.keys, h), len(self.keys) - 1)
            found = self.keys[pos] == h
            for ew, w in zip(self.words, words):
                found &= ew[pos] == w
            return np.where(found, self.payload[pos], miss)
        code, found = self._codes(words)
        got = _find((self.keys, self.payload), code, miss)
        return np.where(found, got, miss)


_MIX = np.uint64(0x9E3779B97F4A7C15)


def _mix(words) -> np.ndarray:
    """A 64-bit hash of each key's words (multiply-xorshift; wraps modulo 2**64)."""
    h = np.asarray(words[0], dtype=U64)
    with np.errstate(over="ignore"):
        for w in words[1:]:
            h = (h ^ (h >> U64(31))) * _MIX + np.asarray(w, dtype=U64)
    return h ^ (h >> U64(29))


def _words(values: list[int], widths: list[int]) -> np.ndarray:
    """Packed keys (ints, fields MSB first) as a ``(words, len(values))`` uint64 array, zero-padded at
    the end as ``pack_words`` pads."""
    total = sum(widths)
    nwords = max(1, (total + 63) // 64)
    pad = nwords * 64 - total
    out = np.zeros((nwords, len(values)), dtype=U64)
    for i, v in enumerate(values):
        v <<= pad
        for k in range(nwords):
            out[k, i] = (v >> (64 * (nwords - 1 - k))) & 0xFFFFFFFFFFFFFFFF
    return out


def _sorted(keys: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    o = np.argsort(keys, kind="stable")
    return keys[o], np.asarray(idx, dtype=np.int64)[o]


def _find(table: tuple[np.ndarray, np.ndarray], k: np.ndarray, miss: int) -> np.ndarray:
    ks, ix = table
    if len(ks) == 0:
        return np.full(len(k), miss, dtype=np.int64)
    pos = np.minimum(np.searchsorted(ks, k), len(ks) - 1)
    return np.where(ks[pos] == k, ix[pos], miss)


def _pack_ints(values: list[int], widths: list[int]) -> int:
    out = 0
    for v, w in zip(values, widths):
        out = (out << w) | v
    return out


def _pack(key: tuple, layout) -> int:
    return _pack_ints(list(key), [w for _, w in layout])


def _pack_cols(cols: list[np.ndarray], widths: list[int]) -> np.ndarray:
    out = None
    for c, w in zip(cols, widths):
        out = c if out is None else (out << U64(w)) | c
    return out
