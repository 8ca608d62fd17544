"""Neutral match-key specifications, one per P4 match kind, with values as plain ints.

Produced by the CLI parser (from ``v``, ``v/len``, ``v&&&m``, ``lo->hi``), by the runtime-JSON
conversion and by the STF helpers; the switch checks widths and installs them.
"""
from __future__ import annotations

from dataclasses import field
from typing import Union

from dataplane.records import record


@record(frozen=True, slots=True)
class ExactKey:
    """Match when the field equals ``value``."""

    value: int
    text: str = field(default="", compare=False)

    @property
    def kind(self) -> str:
        return "exact"


@record(frozen=True, slots=True)
class LpmKey:
    """Match when the top ``prefix_len`` bits of the field equal those of ``value``."""

    value: int
    prefix_len: int
    text: str = field(default="", compare=False)

    @property
    def kind(self) -> str:
        return "lpm"


@record(frozen=True, slots=True)
class TernaryKey:
    """Match when ``field & mask == value & mask``."""

    value: int
    mask: int
    text: str = field(default="", compare=False)

    @property
    def kind(self) -> str:
        return "ternary"


@record(frozen=True, slots=True)
class RangeKey:
    """Match when ``low <= field <= high``."""

    low: int
    high: int
    text: str = field(default="", compare=False)

    @property
    def kind(self) -> str:
        return "range"


KeySpec = Union[ExactKey, LpmKey, TernaryKey, RangeKey]

# Key kinds that make an entry need a priority (BMv2's CLI, P4Runtime's validateTableEntry).
PRIORITY_KINDS = frozenset({"ternary", "range", "optional"})
