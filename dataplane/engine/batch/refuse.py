"""Refusals: a construct the batch engine cannot run exactly, named with its P4 location."""
from __future__ import annotations

from typing import NoReturn

from dataplane.errors import DataplaneError


class BatchUnsupported(DataplaneError):
    """The batch engine cannot run this program exactly; the message says what and where."""


def location(node) -> str:
    span = getattr(node, "span", None)
    if span is None or not getattr(span, "line", 0):
        return ""
    return f"{span.file}:{span.line}:{span.col}: "


def refuse(node, what: str) -> NoReturn:
    """Raise ``BatchUnsupported`` for ``what`` at ``node``'s source location."""
    raise BatchUnsupported(f"{location(node)}{what}")
