"""The lookup structures behind ``MatchTable``, one per family of match kinds, and ``Entry``.

``ExactStructure`` serves all-exact keys, ``LpmStructure`` one lpm field plus exact fields,
``PriorityStructure`` any ternary, range or optional field; ``dataplane.engine.tables``
picks one by the key layout and documents the semantics (BMv2's). Each structure offers:
add(entry) -> None, or the installed entry with the same key (then nothing changes);
modified(entry) after the entry's value changed; remove(entry);
find(key, priority) -> Entry | None; clear(); and the fast lookup(key) /
lookup_entry(key) closures built over its own containers.

The priority structure groups entries by their mask tuple; each group is a dict from
masked key to entries (best first), and groups are probed in descending order of
their best priority, stopping once no remaining group can win.
"""
from __future__ import annotations

import heapq
import operator
from typing import Any, Callable, Sequence

__all__ = ["Entry", "ExactStructure", "LpmStructure", "PriorityStructure"]


class Entry:
    """One installed entry. Read ``handle``, ``key`` (normalized), ``priority``, ``value``; do not assign."""

    __slots__ = ("handle", "key", "priority", "value", "_order", "_ranges", "_bkey", "_group")

    def __init__(self, handle: int, key: tuple, priority: int | None, value: Any):
        self.handle = handle
        self.key = key
        self.priority = priority
        self.value = value

    def __repr__(self) -> str:
        prio = "" if self.priority is None else f", priority={self.priority}"
        return f"Entry(handle={self.handle}, key={self.key!r}{prio}, value={self.value!r})"


class ExactStructure:
    """All-exact keys: the key tuple itself indexes one dict.

    A second dict maps keys straight to values, so ``lookup`` is that dict's own
    ``get`` (no Python-level call at all); ``modified`` keeps it in step.
    """

    kind = "exact"

    def __init__(self, layout: Sequence[tuple[str, int]]):
        self._map: dict[tuple, Entry] = {}
        self._values: dict[tuple, Any] = {}
        self.lookup = self._values.get
        self.lookup_entry = self._map.get

    def find(self, key: tuple, priority: int | None) -> Entry | None:
        return self._map.get(key)

    def add(self, entry: Entry) -> Entry | None:
        e = self._map.setdefault(entry.key, entry)
        if e is not entry:
            return e
        self._values[entry.key] = entry.value
        return None

    def modified(self, entry: Entry) -> None:
        self._values[entry.key] = entry.value

    def remove(self, entry: Entry) -> None:
        del self._map[entry.key]
        del self._values[entry.key]

    def clear(self) -> None:
        self._map.clear()
        self._values.clear()


class _Levels:
    """The prefixes of one LPM field: a dict per prefix length, probed longest first.

    A lookup costs one dict probe per prefix length present (at most width + 1),
    whatever the number of entries; longest-first order makes the first hit the
    answer.
    """

    __slots__ = ("width", "masks", "by_len", "probes")

    def __init__(self, width: int):
        self.width = width
        full = (1 << width) - 1
        self.masks = [full ^ ((1 << (width - p)) - 1) for p in range(width + 1)]
        self.by_len: dict[int, dict[int, Entry]] = {}
        # (mask, level dict), longest prefix first; mutated in place so closures see updates.
        self.probes: list[tuple[int, dict[int, Entry]]] = []

    def find(self, v: int) -> Entry | None:
        """The entry with the longest prefix matching ``v``."""
        for mask, d in self.probes:
            e = d.get(v & mask)
            if e is not None:
                return e
        return None

    def _reprobe(self) -> None:
        self.probes[:] = [(self.masks[p], self.by_len[p]) for p in sorted(self.by_len, reverse=True)]

    def get(self, value: int, plen: int) -> Entry | None:
        d = self.by_len.get(plen)
        return None if d is None else d.get(value)

    def add(self, value: int, plen: int, entry: Entry) -> Entry | None:
        d = self.by_len.get(plen)
        if d is None:
            self.by_len[plen] = {value: entry}
            self._reprobe()
            return None
        e = d.setdefault(value, entry)
        return None if e is entry else e

    def remove(self, value: int, plen: int) -> None:
        d = self.by_len[plen]
        del d[value]
        if not d:
            del self.by_len[plen]
            self._reprobe()

    def clear(self) -> None:
        self.by_len.clear()
        self.probes.clear()

    def __bool__(self) -> bool:
        return bool(self.by_len)


class LpmStructure:
    """One lpm field plus exact fields: per exact-fields tuple, longest prefix first."""

    kind = "lpm"

    def __init__(self, layout: Sequence[tuple[str, int]]):
        self._index = i = next(n for n, (k, _) in enumerate(layout) if k == "lpm")
        self._width = layout[i][1]
        self._single = len(layout) == 1
        self._root = _Levels(self._width)
        self._outer: dict[tuple, _Levels] = {}
        if self._single:
            probes = self._root.probes

            def lookup_entry(key: tuple) -> Entry | None:
                v = key[0]
                for mask, d in probes:
                    e = d.get(v & mask)
                    if e is not None:
                        return e
                return None

            def lookup(key: tuple) -> Any:
                # lookup_entry's loop again, not a call to it: this is the per-packet path.
                v = key[0]
                for mask, d in probes:
                    e = d.get(v & mask)
                    if e is not None:
                        return e.value
                return None
        else:
            outer_get = self._outer.get
            rest_of = self._rest_fn(len(layout), i)

            def lookup_entry(key: tuple) -> Entry | None:
                levels = outer_get(rest_of(key))
                return None if levels is None else levels.find(key[i])

            def lookup(key: tuple) -> Any:
                e = lookup_entry(key)
                return None if e is None else e.value

        self.lookup = lookup
        self.lookup_entry = lookup_entry

    @staticmethod
    def _rest_fn(n: int, i: int) -> Callable[[tuple], tuple]:
        """The key without the lpm field, as a tuple (a C-level itemgetter where possible)."""
        others = [j for j in range(n) if j != i]
        if len(others) == 1:
            j = others[0]
            return lambda key: (key[j],)
        return operator.itemgetter(*others)

    def _split(self, key: tuple) -> tuple[tuple, int, int]:
        i = self._index
        value, plen = key[i]
        return key[:i] + key[i + 1:], value, plen

    def find(self, key: tuple, priority: int | None) -> Entry | None:
        rest, value, plen = self._split(key)
        levels = self._root if self._single else self._outer.get(rest)
        return None if levels is None else levels.get(value, plen)

    def add(self, entry: Entry) -> Entry | None:
        if self._single:
            value, plen = entry.key[0]
            return self._root.add(value, plen, entry)
        rest, value, plen = self._split(entry.key)
        levels = self._outer.get(rest)
        if levels is None:
            levels = self._outer[rest] = _Levels(self._width)
        return levels.add(value, plen, entry)

    def modified(self, entry: Entry) -> None:
        """Nothing to do: the level dicts hold the entry itself."""

    def remove(self, entry: Entry) -> None:
        rest, value, plen = self._split(entry.key)
        levels = self._root if self._single else self._outer[rest]
        levels.remove(value, plen)
        if not self._single and not levels:
            del self._outer[rest]

    def clear(self) -> None:
        self._root.clear()
        self._outer.clear()


def _masker(masks: tuple[int, ...], full: tuple[int, ...]) -> Callable[[tuple], Any]:
    """A function from a packet key to the bucket key of one mask group.

    Fields with mask 0 are left out; fields with a full mask are taken as they are.
    The source is generated from ints only (no names from the table), then compiled.
    """
    parts = []
    for j, (m, f) in enumerate(zip(masks, full)):
        if m == 0:
            continue
        parts.append((j, None if m == f else m))
    if not parts:
        return lambda key: ()
    if all(m is None for _, m in parts):
        idx = [j for j, _ in parts]
        if len(idx) == 1:
            j = idx[0]
            return lambda key: key[j]
        return operator.itemgetter(*idx)
    terms = [f"key[{j}]" if m is None else f"key[{j}] & {m}" for j, m in parts]
    body = terms[0] if len(terms) == 1 else "(" + ", ".join(terms) + ",)"
    return eval(f"lambda key: {body}", {"__builtins__": {}})  # noqa: S307 -- ints only


class _Group:
    """Entries sharing one mask tuple (and the same range-checked fields)."""

    __slots__ = ("keyfn", "buckets", "has_ranges", "prio_count", "max_prio")

    def __init__(self, keyfn: Callable[[tuple], Any], has_ranges: bool):
        self.keyfn = keyfn
        self.buckets: dict[Any, list[Entry]] = {}
        self.has_ranges = has_ranges
        self.prio_count: dict[int, int] = {}
        self.max_prio: int | None = None


class PriorityStructure:
    """Ternary/range/optional keys (lpm and exact fields become masks): largest priority wins."""

    kind = "priority"

    def __init__(self, layout: Sequence[tuple[str, int]]):
        self._layout = tuple(layout)
        self._full = tuple((1 << w) - 1 for _, w in layout)
        self._groups: dict[tuple, _Group] = {}
        self._by_key: dict[tuple, Entry] = {}
        # (max_prio, keyfn, buckets, has_ranges), best group first; mutated in place.
        probes: list[tuple[int, Callable, dict, bool]] = []
        self._probes = probes
        self._free_slots: list[int] = []
        self._next_slot = 0

        def lookup_entry(key: tuple) -> Entry | None:
            best = None
            best_prio = 0
            for max_prio, keyfn, buckets, has_ranges in probes:
                if best is not None and max_prio < best_prio:
                    break
                bucket = buckets.get(keyfn(key))
                if bucket is None:
                    continue
                if has_ranges:
                    cand = None
                    for e in bucket:
                        if best is not None and e._order > best._order:
                            break
                        for j, lo, hi in e._ranges:
                            if not lo <= key[j] <= hi:
                                break
                        else:
                            cand = e
                            break
                    if cand is None:
                        continue
                else:
                    cand = bucket[0]
                if best is None or cand._order < best._order:
                    best = cand
                    best_prio = cand.priority
            return best

        def lookup(key: tuple) -> Any:
            e = lookup_entry(key)
            return None if e is None else e.value

        self.lookup = lookup
        self.lookup_entry = lookup_entry

    def _reprobe(self) -> None:
        groups = sorted(self._groups.values(), key=lambda g: -g.max_prio)
        self._probes[:] = [(g.max_prio, g.keyfn, g.buckets, g.has_ranges) for g in groups]

    def _shape(self, key: tuple) -> tuple[tuple[int, ...], tuple[int, ...], tuple]:
        """Masks, masked values and range checks ``(field, lo, hi)`` of a normalized key."""
        masks, values, ranges = [], [], []
        for j, ((kind, _), k, full) in enumerate(zip(self._layout, key, self._full)):
            if kind == "exact":
                masks.append(full)
                values.append(k)
            elif kind == "ternary":
                masks.append(k[1])
                values.append(k[0])
            elif kind == "lpm":
                v, plen = k
                w = self._layout[j][1]
                masks.append(full ^ ((1 << (w - plen)) - 1))
                values.append(v)
            elif kind == "optional":
                if k is None:
                    masks.append(0)
                    values.append(0)
                else:
                    masks.append(full)
                    values.append(k)
            else:  # range
                lo, hi = k
                if lo == hi:
                    masks.append(full)
                    values.append(lo)
                else:
                    masks.append(0)
                    values.append(0)
                    if not (lo == 0 and hi == full):
                        ranges.append((j, lo, hi))
        return tuple(masks), tuple(values), tuple(ranges)

    def find(self, key: tuple, priority: int | None) -> Entry | None:
        return self._by_key.get((key, priority))

    def add(self, entry: Entry) -> Entry | None:
        clash = self._by_key.get((entry.key, entry.priority))
        if clash is not None:
            return clash
        masks, values, ranges = self._shape(entry.key)
        gkey = (masks, tuple(j for j, _, _ in ranges))
        group = self._groups.get(gkey)
        if group is None:
            group = self._groups[gkey] = _Group(_masker(masks, self._full), bool(ranges))
        if self._free_slots:
            slot = heapq.heappop(self._free_slots)
        else:
            slot = self._next_slot
            self._next_slot += 1
        entry._order = (-entry.priority, slot)
        entry._ranges = ranges
        entry._bkey = bkey = group.keyfn(values)
        entry._group = gkey
        bucket = group.buckets.get(bkey)
        if bucket is None:
            group.buckets[bkey] = [entry]
        else:
            _insort_by_order(bucket, entry)
        p = entry.priority
        group.prio_count[p] = group.prio_count.get(p, 0) + 1
        self._by_key[(entry.key, p)] = entry
        if group.max_prio is None or p > group.max_prio:
            group.max_prio = p
            self._reprobe()
        return None

    def modified(self, entry: Entry) -> None:
        """Nothing to do: the buckets hold the entry itself."""

    def remove(self, entry: Entry) -> None:
        group = self._groups[entry._group]
        bucket = group.buckets[entry._bkey]
        bucket.remove(entry)
        if not bucket:
            del group.buckets[entry._bkey]
        p = entry.priority
        del self._by_key[(entry.key, p)]
        heapq.heappush(self._free_slots, entry._order[1])
        n = group.prio_count[p] - 1
        if n:
            group.prio_count[p] = n
            return
        del group.prio_count[p]
        if not group.prio_count:
            del self._groups[entry._group]
            self._reprobe()
        elif p == group.max_prio:
            group.max_prio = max(group.prio_count)
            self._reprobe()

    def clear(self) -> None:
        self._groups.clear()
        self._by_key.clear()
        self._probes.clear()
        self._free_slots.clear()
        self._next_slot = 0


def _insort_by_order(bucket: list, entry: Entry) -> None:
    """Insert ``entry`` after every entry of equal or smaller ``_order`` (bisect's insort_right;
    its ``key=`` argument needs Python 3.10)."""
    order, lo, hi = entry._order, 0, len(bucket)
    while lo < hi:
        mid = (lo + hi) // 2
        if order < bucket[mid]._order:
            hi = mid
        else:
            lo = mid + 1
    bucket.insert(lo, entry)
