"""Match tables: one interface, a lookup structure chosen by the key's match kinds.

A table's key layout is ``[(match_kind, width_bits), ...]`` with kinds ``exact``,
``lpm`` (at most one), ``ternary``, ``range`` and ``optional``. A packet's key is a
tuple of ints, one per field, already within each field's width. An entry's key
gives, per field: exact ``int``; lpm ``(value, prefix_len)``; ternary
``(value, mask)``; range ``(lo, hi)`` inclusive; optional ``int`` or ``None``
(wildcard). Values are masked on insert, so ``entries()`` shows the normalized key.

Semantics are BMv2's (``src/bm_sim/match_units.cpp``, ``lookup_structures.cpp``):

* only exact fields: one dict lookup; a duplicate key is refused.
* one lpm field plus exact fields: among entries whose exact fields are equal,
  the longest prefix wins (BMv2 folds the exact fields into the prefix length).
  Built as one dict per prefix length, probed longest first.
* any ternary, range or optional field: the LARGER numeric priority wins (the
  P4Runtime convention; callers convert others). Ties go to the entry in the
  lowest internal slot: BMv2 keeps ternary entries in a list ordered by handle and
  takes the first best, and hands out the lowest free handle, so earlier-inserted
  wins unless a later entry reused a freed slot. An lpm field here is just a mask
  (its prefix length plays no part). Same key with a different priority is a
  different entry; same key and priority is a duplicate.

The priority structure groups entries by their mask tuple; each group is a dict from
masked key to entries (best first), and groups are probed in descending order of
their best priority, stopping once no remaining group can win.
"""
from __future__ import annotations

import heapq
import operator
from bisect import insort
from typing import Any, Callable, Iterable, Sequence

from dataplane.engine.table_errors import (
    BadKeyError, DuplicateEntryError, EntryNotFoundError, TableError, TableFullError,
)

__all__ = ["MATCH_KINDS", "Entry", "MatchTable"]

MATCH_KINDS = ("exact", "lpm", "ternary", "range", "optional")


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


# ---------------------------------------------------------------------------
# Lookup structures (strategies). Each one offers: add(entry) -> None, or the
# installed entry with the same key (then nothing changes); modified(entry) after
# the entry's value changed; remove(entry);
# find(key, priority) -> Entry | None; clear(); and the fast lookup(key) /
# lookup_entry(key) closures built over its own containers.
# ---------------------------------------------------------------------------

class _ExactStructure:
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


class _LpmStructure:
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


class _PriorityStructure:
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
            insort(bucket, entry, key=_order_of)
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


def _order_of(entry: Entry) -> tuple[int, int]:
    return entry._order


# ---------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------

class MatchTable:
    """A match table over a fixed key layout; the lookup structure follows the match kinds.

    ``lookup(key)`` returns the winning entry's value (``None`` on a miss) and
    ``lookup_entry(key)`` the :class:`Entry` itself; both are closures of the chosen
    structure, bound to the instance, so a lookup costs no extra dispatch.
    """

    def __init__(self, layout: Iterable[tuple[str, int]], *, max_size: int | None = None, name: str = "table"):
        self.name = name
        self.layout: tuple[tuple[str, int], ...] = tuple((str(k), int(w)) for k, w in layout)
        self.max_size = max_size
        kinds = [k for k, _ in self.layout]
        for i, (kind, width) in enumerate(self.layout):
            if kind not in MATCH_KINDS:
                raise TableError(f"{name}: key field {i} has unknown match kind {kind!r} "
                                 f"(expected one of {', '.join(MATCH_KINDS)})")
            if width < 1:
                raise TableError(f"{name}: key field {i} has width {width}; widths must be at least 1 bit")
        if kinds.count("lpm") > 1:
            raise TableError(f"{name}: a table key may have at most one lpm field, this one has {kinds.count('lpm')}")
        if max_size is not None and max_size < 0:
            raise TableError(f"{name}: max_size must be non-negative, not {max_size}")
        if any(k in ("ternary", "range", "optional") for k in kinds):
            structure = _PriorityStructure(self.layout)
        elif "lpm" in kinds:
            structure = _LpmStructure(self.layout)
        else:
            structure = _ExactStructure(self.layout)
        self._structure = structure
        self._entries: dict[int, Entry] = {}
        self._next_handle = 0
        self._field_normalizers = self._make_field_normalizers()
        self.lookup: Callable[[tuple], Any] = structure.lookup
        self.lookup_entry: Callable[[tuple], Entry | None] = structure.lookup_entry

    # The two lookups are instance attributes set in __init__; these stubs document them.
    def lookup(self, key: tuple) -> Any:  # pragma: no cover - shadowed per instance
        """The value of the entry matching ``key`` (a tuple of ints), or ``None`` on a miss."""
        return self._structure.lookup(key)

    def lookup_entry(self, key: tuple) -> Entry | None:  # pragma: no cover - shadowed per instance
        """The :class:`Entry` matching ``key``, or ``None`` on a miss."""
        return self._structure.lookup_entry(key)

    @property
    def structure(self) -> str:
        """Which lookup structure serves this table: ``exact``, ``lpm`` or ``priority``."""
        return self._structure.kind

    @property
    def uses_priority(self) -> bool:
        """Whether entries need a priority (the key has a ternary, range or optional field)."""
        return self._structure.kind == "priority"

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"MatchTable({self.name!r}, {list(self.layout)!r}, {len(self)} entries, {self.structure})"

    # -- edits ---------------------------------------------------------------

    def add(self, entry_key: Sequence, priority: int | None, value: Any) -> int:
        """Install an entry and return its handle.

        Raises BadKeyError (malformed key, value too wide, missing priority in a
        priority table), DuplicateEntryError, TableFullError.
        """
        key = self.normalize(entry_key)
        if self.uses_priority:
            if isinstance(priority, bool) or not isinstance(priority, int):
                raise BadKeyError(f"{self.name}: entries of a table with ternary, range or optional "
                                  f"fields need an integer priority, got {priority!r}")
        elif priority is not None and (isinstance(priority, bool) or not isinstance(priority, int)):
            raise BadKeyError(f"{self.name}: priority must be an int or None, got {priority!r}")
        structure = self._structure
        # BMv2 reports a duplicate before a full table.
        if self.max_size is not None and len(self._entries) >= self.max_size:
            if structure.find(key, priority) is None:
                raise TableFullError(f"{self.name}: table is full ({self.max_size} entries)")
            self._duplicate(key, priority)
        handle = self._next_handle
        entry = Entry(handle, key, priority, value)
        if structure.add(entry) is not None:
            self._duplicate(key, priority)
        self._next_handle = handle + 1
        self._entries[handle] = entry
        return handle

    def _duplicate(self, key: tuple, priority: int | None):
        prio = f" with priority {priority}" if self.uses_priority else ""
        raise DuplicateEntryError(f"{self.name}: an entry with key {_fmt_key(key)}{prio} already exists")

    def modify(self, handle: int, value: Any) -> None:
        """Replace the value (action data) of an installed entry."""
        entry = self.get(handle)
        entry.value = value
        self._structure.modified(entry)

    def delete(self, handle: int) -> None:
        """Remove an installed entry."""
        entry = self.get(handle)
        self._structure.remove(entry)
        del self._entries[handle]

    def clear(self) -> None:
        """Remove every entry. Handles are never reused, so old handles stay invalid."""
        self._structure.clear()
        self._entries.clear()

    # -- queries -------------------------------------------------------------

    def get(self, handle: int) -> Entry:
        """The entry with this handle; EntryNotFoundError if there is none."""
        try:
            return self._entries[handle]
        except (KeyError, TypeError):
            raise EntryNotFoundError(f"{self.name}: no entry with handle {handle!r}") from None

    def find(self, entry_key: Sequence, priority: int | None = None) -> int | None:
        """The handle of the entry with exactly this key (and priority, in a priority table), or None."""
        key = self.normalize(entry_key)
        entry = self._structure.find(key, priority if self.uses_priority else None)
        return None if entry is None else entry.handle

    def entries(self) -> list[Entry]:
        """Installed entries, oldest first."""
        return list(self._entries.values())

    def normalize(self, entry_key: Sequence) -> tuple:
        """Check an entry key against the layout and return it masked (see the module docstring)."""
        if type(entry_key) is not tuple and not isinstance(entry_key, (tuple, list)):
            raise BadKeyError(f"{self.name}: an entry key is a tuple with one item per key field, got {entry_key!r}")
        fields = self._field_normalizers
        if len(entry_key) != len(fields):
            raise BadKeyError(f"{self.name}: entry key has {len(entry_key)} fields, the table key has {len(fields)}")
        if len(fields) == 1:
            return (fields[0](entry_key[0]),)
        return tuple([f(k) for f, k in zip(fields, entry_key)])

    def _make_field_normalizers(self) -> list[Callable[[Any], Any]]:
        """Per field, a function that returns the normalized key item or raises BadKeyError.

        Each takes a fast path for plain ints and tuples and otherwise defers to
        :meth:`_normalize_field`, which accepts lists and int subclasses and words the errors.
        """
        out = []
        for i, (kind, width) in enumerate(self.layout):
            slow = lambda k, i=i: self._normalize_field(i, k)  # noqa: E731
            full = (1 << width) - 1
            if kind == "exact":
                def norm(k, full=full, slow=slow):
                    return k if type(k) is int and 0 <= k <= full else slow(k)
            elif kind == "optional":
                def norm(k, full=full, slow=slow):
                    return k if k is None or (type(k) is int and 0 <= k <= full) else slow(k)
            elif kind == "lpm":
                masks = [full ^ ((1 << (width - p)) - 1) for p in range(width + 1)]

                def norm(k, full=full, width=width, masks=masks, slow=slow):
                    if type(k) is tuple and len(k) == 2:
                        v, p = k
                        if type(v) is int and type(p) is int and 0 <= v <= full and 0 <= p <= width:
                            return (v & masks[p], p)
                    return slow(k)
            elif kind == "ternary":
                def norm(k, full=full, slow=slow):
                    if type(k) is tuple and len(k) == 2:
                        v, m = k
                        if type(v) is int and type(m) is int and 0 <= v <= full and 0 <= m <= full:
                            return (v & m, m)
                    return slow(k)
            else:  # range
                def norm(k, full=full, slow=slow):
                    if type(k) is tuple and len(k) == 2:
                        lo, hi = k
                        if type(lo) is int and type(hi) is int and 0 <= lo <= hi <= full:
                            return k
                    return slow(k)
            out.append(norm)
        return out

    def _normalize_field(self, i: int, k: Any) -> Any:
        """Normalize key item ``k`` of field ``i`` (the slow, fully checked path)."""
        kind, width = self.layout[i]
        if kind == "exact":
            return self._check_int(i, kind, width, k, "value")
        if kind == "optional":
            return None if k is None else self._check_int(i, kind, width, k, "value")
        if not isinstance(k, (tuple, list)) or len(k) != 2:
            form = {"lpm": "(value, prefix_len)", "ternary": "(value, mask)", "range": "(lo, hi)"}[kind]
            raise BadKeyError(f"{self.name}: field {i} ({kind}) takes {form}, got {k!r}")
        a, b = k
        if kind == "lpm":
            v = self._check_int(i, kind, width, a, "value")
            if isinstance(b, bool) or not isinstance(b, int) or not 0 <= b <= width:
                raise BadKeyError(f"{self.name}: field {i} (lpm, bit<{width}>): prefix length {b!r} "
                                  f"is not in 0..{width}")
            b = int(b)
            return (v & (((1 << width) - 1) ^ ((1 << (width - b)) - 1)), b)
        if kind == "ternary":
            v = self._check_int(i, kind, width, a, "value")
            m = self._check_int(i, kind, width, b, "mask")
            return (v & m, m)
        lo = self._check_int(i, kind, width, a, "low bound")
        hi = self._check_int(i, kind, width, b, "high bound")
        if lo > hi:
            raise BadKeyError(f"{self.name}: field {i} (range, bit<{width}>): low bound {lo} "
                              f"is above high bound {hi}")
        return (lo, hi)

    def _check_int(self, i: int, kind: str, width: int, v: Any, what: str) -> int:
        if isinstance(v, bool) or not isinstance(v, int):
            raise BadKeyError(f"{self.name}: field {i} ({kind}, bit<{width}>): {what} {v!r} is not an integer")
        if v < 0 or v >> width:
            raise BadKeyError(f"{self.name}: field {i} ({kind}, bit<{width}>): {what} {v} (0x{v:x}) "
                              f"does not fit in {width} bits" if v >= 0 else
                              f"{self.name}: field {i} ({kind}, bit<{width}>): {what} {v} is negative")
        return int(v)


def _fmt_key(key: tuple) -> str:
    parts = []
    for k in key:
        if k is None:
            parts.append("*")
        elif isinstance(k, tuple):
            parts.append(f"(0x{k[0]:x}, {k[1]:#x})")
        else:
            parts.append(f"0x{k:x}")
    return "(" + ", ".join(parts) + ")"
