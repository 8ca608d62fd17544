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
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

from dataplane.engine.match_structures import Entry, ExactStructure, LpmStructure, PriorityStructure
from dataplane.engine.table_errors import (
    BadKeyError,
    DuplicateEntryError,
    EntryNotFoundError,
    TableError,
    TableFullError,
)

__all__ = ["MATCH_KINDS", "Entry", "MatchTable"]

MATCH_KINDS = ("exact", "lpm", "ternary", "range", "optional")


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
            structure = PriorityStructure(self.layout)
        elif "lpm" in kinds:
            structure = LpmStructure(self.layout)
        else:
            structure = ExactStructure(self.layout)
        self._structure = structure
        self._entries: dict[int, Entry] = {}
        self._next_handle = 0
        self.version = 0   # bumped by every edit: the batch engine's snapshots compare it
        # called after every edit: a switch's decision cache forgets what it learnt (engine.decision)
        self.on_edit: Callable[[], None] | None = None
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
        self.edited()
        return handle

    def _duplicate(self, key: tuple, priority: int | None):
        prio = f" with priority {priority}" if self.uses_priority else ""
        raise DuplicateEntryError(f"{self.name}: an entry with key {_fmt_key(key)}{prio} already exists")

    def modify(self, handle: int, value: Any) -> None:
        """Replace the value (action data) of an installed entry."""
        entry = self.get(handle)
        entry.value = value
        self._structure.modified(entry)
        self.edited()

    def delete(self, handle: int) -> None:
        """Remove an installed entry."""
        entry = self.get(handle)
        self._structure.remove(entry)
        del self._entries[handle]
        self.edited()

    def clear(self) -> None:
        """Remove every entry. Handles are never reused, so old handles stay invalid."""
        self._structure.clear()
        self._entries.clear()
        self.edited()

    def edited(self) -> None:
        """Note an edit: every change of an entry comes here, and so must one made in place
        (a selector group's members): the batch engine's snapshots and decision caches follow it."""
        self.version += 1
        if self.on_edit is not None:
            self.on_edit()

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
