"""Natural order of node names: h2 before h10, leaf2:p3 before leaf10:p1."""
from __future__ import annotations

import re
from typing import Any, Iterable, TypeVar

T = TypeVar("T")
_DIGITS = re.compile(r"(\d+)")


def natural_key(name: str) -> tuple[Any, ...]:
    """A sort key that compares the runs of digits in ``name`` as numbers."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in _DIGITS.split(name) if part)


def natural_sorted(items: Iterable[T]) -> list[T]:
    """``items`` (names, or (name, value) pairs) in natural order of the name."""
    return sorted(items, key=lambda item: natural_key(item if isinstance(item, str) else item[0]))
