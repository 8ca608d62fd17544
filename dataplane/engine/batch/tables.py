"""Tables as vectorised lookups over a snapshot of their entries.

A snapshot turns a table's installed entries into sorted numpy arrays, rebuilt when the
entries or the default action change (``MatchTable.version``). Keys are packed into one
``uint64`` per packet (a key wider than 64 bits is refused). Semantics are the per-packet
engine's (``dataplane.engine.tables``):

* exact: one sorted array, ``searchsorted``.
* lpm (plus exact fields): a sorted array per prefix length, probed longest first.
* ternary, range, optional: the matching entry with the smallest ``(-priority, slot)``
  wins, the order ``PriorityStructure`` keeps; entries without ranges are grouped by mask
  (one sorted array of masked values each), entries with ranges are tested one by one.

The lookup gives each packet an entry index; index ``len(entries)`` is the default action.
"""
from __future__ import annotations

import numpy as np

from dataplane.engine.batch.values import U64

NO_RANK = np.iinfo(np.int64).max


class Snapshot:
    """One table's entries as arrays: lookups by packed key, each entry's action and arguments."""

    def __init__(self, rt, action_names: list[str], param_counts: dict[str, int]):
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
            cols = [np.zeros(n + 1, dtype=U64) for _ in range(param_counts.get(a, 0))]
            for i, v in enumerate(values):
                if v.name == a:
                    for j, x in enumerate(v.args):
                        cols[j][i] = int(x)
            self.args[a] = cols
        layout = rt.match.layout
        self.kind = rt.match.structure
        if self.kind == "exact":
            keys = np.array([_pack(e.key, layout) for e in raw], dtype=U64)
            self.exact = _sorted(keys, np.arange(n))
        elif self.kind == "lpm":
            self._build_lpm(raw, layout)
        else:
            self._build_priority(raw, layout, rt.match._structure)

    # ---- lpm ------------------------------------------------------------------------------------
    def _build_lpm(self, raw, layout) -> None:
        li = next(i for i, (k, _) in enumerate(layout) if k == "lpm")
        lw = layout[li][1]
        exact_bits = sum(w for i, (_, w) in enumerate(layout) if i != li)
        by_len: dict[int, tuple[list[int], list[int]]] = {}
        for i, e in enumerate(raw):
            value, plen = e.key[li]
            rest = [k for j, k in enumerate(e.key) if j != li]
            packed = _pack_ints(rest + [value], [w for j, (_, w) in enumerate(layout) if j != li] + [lw])
            ks, ix = by_len.setdefault(plen, ([], []))
            ks.append(packed)
            ix.append(i)
        exact_mask = ((1 << exact_bits) - 1) << lw
        self.levels = []
        for plen in sorted(by_len, reverse=True):
            ks, ix = by_len[plen]
            m = exact_mask | (((1 << lw) - 1) ^ ((1 << (lw - plen)) - 1))
            self.levels.append((U64(m), *_sorted(np.array(ks, dtype=U64), np.array(ix))))
        self.lpm_index = li

    # ---- priority --------------------------------------------------------------------------------
    def _build_priority(self, raw, layout, structure) -> None:
        order = sorted(range(len(raw)), key=lambda i: raw[i]._order)
        rank = np.empty(len(raw), dtype=np.int64)
        rank[order] = np.arange(len(raw))
        self.rank_to_index = np.append(np.array(order, dtype=np.int64), len(raw))
        widths = [w for _, w in layout]
        groups: dict[int, dict[int, int]] = {}
        self.ranged = []   # (packed mask, packed value, ((field, lo, hi), ...), rank)
        for i, e in enumerate(raw):
            masks, values, ranges = structure._shape(e.key)
            pm, pv = _pack_ints(list(masks), widths), _pack_ints(list(values), widths)
            if ranges:
                self.ranged.append((U64(pm), U64(pv & pm), ranges, int(rank[i])))
                continue
            best = groups.setdefault(pm, {})
            v = pv & pm
            if v not in best or rank[i] < best[v]:
                best[v] = int(rank[i])
        self.groups = []
        for pm, best in groups.items():
            vs = np.array(list(best), dtype=U64)
            rs = np.array(list(best.values()), dtype=np.int64)
            o = np.argsort(vs, kind="stable")
            self.groups.append((U64(pm), vs[o], rs[o]))

    # ---- lookup ----------------------------------------------------------------------------------
    def lookup(self, fields: list[np.ndarray], layout) -> np.ndarray:
        """Each packet's entry index (``size`` for a miss) for key columns ``fields``."""
        n = len(fields[0]) if fields else 0
        if self.size == 0:
            return np.full(n, 0, dtype=np.int64)
        if self.kind == "exact":
            return _find(self.exact, _pack_cols(fields, [w for _, w in layout]), self.size)
        if self.kind == "lpm":
            li = self.lpm_index
            ws = [w for j, (_, w) in enumerate(layout) if j != li] + [layout[li][1]]
            k = _pack_cols([f for j, f in enumerate(fields) if j != li] + [fields[li]], ws)
            out = np.full(n, self.size, dtype=np.int64)
            todo = np.ones(n, dtype=bool)
            for m, ks, ix in self.levels:
                idx = _find((ks, ix), k & m, -1)
                hit = todo & (idx >= 0)
                out = np.where(hit, idx, out)
                todo &= ~hit
            return out
        k = _pack_cols(fields, [w for _, w in layout])
        best = np.full(n, len(self.rank_to_index) - 1, dtype=np.int64)
        for m, vs, rs in self.groups:
            pos = np.searchsorted(vs, k & m)
            pos_c = np.minimum(pos, len(vs) - 1)
            found = vs[pos_c] == (k & m)
            best = np.minimum(best, np.where(found, rs[pos_c], NO_RANK))
        for m, v, ranges, r in self.ranged:
            ok = (k & m) == v
            for j, lo, hi in ranges:
                ok &= (fields[j] >= U64(lo)) & (fields[j] <= U64(hi))
            best = np.where(ok & (r < best), r, best)
        return self.rank_to_index[best]


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
