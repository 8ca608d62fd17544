"""P4Runtime ids and aliases as p4c assigns them (control-plane/p4RuntimeSymbolTable.cpp).

An object's id is its kind's 8-bit prefix over the low 24 bits of the Jenkins one-at-a-time
hash of its fully qualified name. Names without an ``@id`` get theirs in sorted order, a
taken id moving to the next free one (linear probing), so the result does not depend on the
order the program declares things in. An alias is the shortest suffix of whole dot-separated
components that no other name of any kind shares.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from dataplane.errors import DataplaneError

# p4.config.v1.P4Ids.Prefix
ACTION = 0x01
TABLE = 0x02
VALUE_SET = 0x03
CONTROLLER_HEADER = 0x04
ACTION_PROFILE = 0x11
COUNTER = 0x12
DIRECT_COUNTER = 0x13
METER = 0x14
DIRECT_METER = 0x15
REGISTER = 0x16
DIGEST = 0x17

_PREFIX_MASK = 0xFF << 24


class P4InfoError(DataplaneError):
    """A program P4Runtime cannot describe (p4c rejects it too), or a P4Info file that cannot be
    read or written; ``span`` locates it in the program when known."""

    code = "p4info"

    def __init__(self, message: str, span=None):
        super().__init__(message)
        self.message = message
        self.span = span

    def __str__(self) -> str:
        if self.span is not None and getattr(self.span, "line", 0):
            return f"{self.span}: error: {self.message}"
        return self.message


def jenkins_one_at_a_time(data: bytes) -> int:
    """Bob Jenkins' one-at-a-time hash over ``data``, as a 32-bit unsigned integer."""
    h = 0
    for byte in data:
        h = (h + byte) & 0xFFFFFFFF
        h = (h + (h << 10)) & 0xFFFFFFFF
        h ^= h >> 6
    h = (h + (h << 3)) & 0xFFFFFFFF
    h ^= h >> 11
    h = (h + (h << 15)) & 0xFFFFFFFF
    return h


def hashed_id(prefix: int, name: str) -> int:
    """The id ``name`` gets when nothing collides: ``prefix << 24 | hash(name) & 0xffffff``."""
    return (prefix << 24) | (jenkins_one_at_a_time(name.encode()) & 0xFFFFFF)


def with_prefix(prefix: int, user_id: int, what: str, span=None) -> int:
    """An ``@id`` value with the kind's prefix filled in; a wrong non-zero prefix is an error."""
    if user_id < 0 or user_id > 0xFFFFFFFF:
        raise P4InfoError(f"{what}: @id should be an unsigned 32-bit integer", span)
    if user_id & _PREFIX_MASK and user_id & _PREFIX_MASK != prefix << 24:
        raise P4InfoError(f"{what}: @id has the wrong 8-bit prefix", span)
    return user_id | (prefix << 24)


@dataclass
class SymbolTable:
    """Every control-plane name by kind, its id once ``compute_ids`` ran, and the suffix tree
    for aliases (shared by all kinds, as p4c's is)."""

    ids: dict[int, dict[str, int | None]] = field(default_factory=dict)
    taken: set[int] = field(default_factory=set)
    _names: set[str] = field(default_factory=set)
    _suffixes: dict = field(default_factory=dict)   # component -> [count, children]

    def add(self, prefix: int, name: str, user_id: int | None = None, span=None) -> None:
        """Record ``name`` of kind ``prefix``; a second add of the same name is ignored."""
        table = self.ids.setdefault(prefix, {})
        if name in table:
            return
        if user_id is not None:
            uid = with_prefix(prefix, user_id, name, span)
            if uid in self.taken:
                raise P4InfoError(f"@id {uid} is assigned to multiple declarations", span)
            self.taken.add(uid)
            table[name] = uid
        else:
            table[name] = None
        self._add_suffixes(name)

    def compute_ids(self) -> None:
        """Give every name without an ``@id`` its hashed id, in sorted order per kind."""
        for prefix in sorted(self.ids):
            table = self.ids[prefix]
            for name in sorted(n for n, i in table.items() if i is None):
                h = jenkins_one_at_a_time(name.encode())
                value = h
                while True:
                    candidate = (prefix << 24) | (value & 0xFFFFFF)
                    if candidate not in self.taken:
                        break
                    value = (value + 1) & 0xFFFFFFFF
                    if value == h:
                        raise P4InfoError(f"no available id to represent {name} in P4Runtime")
                self.taken.add(candidate)
                table[name] = candidate

    def id(self, prefix: int, name: str) -> int:
        return self.ids[prefix][name]

    def has(self, prefix: int, name: str) -> bool:
        return name in self.ids.get(prefix, {})

    def alias(self, name: str) -> str:
        """The shortest unique suffix of ``name`` among every recorded name."""
        parts = name.split(".")
        node = self._suffixes
        needed = 0
        for part in reversed(parts):
            count, node = node[part]
            needed += 1
            if count < 2:
                break
        return ".".join(parts[len(parts) - needed:])

    def _add_suffixes(self, name: str) -> None:
        if name in self._names:
            return
        self._names.add(name)
        node = self._suffixes
        for part in reversed(name.split(".")):
            entry = node.setdefault(part, [0, {}])
            entry[0] += 1
            node = entry[1]
