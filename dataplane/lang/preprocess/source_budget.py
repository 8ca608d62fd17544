"""Reading a program's source text within ``CompileLimits.source_bytes``.

Every file a compile reads counts, the includes too (each time one is included). A file is
read only up to what is left of the budget and one byte more, so a file of gigabytes costs
no more than the limit to refuse, and the refusal names the byte that crossed it (or the
``#include`` that brought it in).
"""
from __future__ import annotations

from pathlib import Path

from dataplane.errors import Span
from dataplane.lang.limits import CompileLimits, LimitExceeded, size_text


class SourceBudget:
    """The bytes of source a compile may still read."""

    def __init__(self, limits: CompileLimits):
        self.limit = limits.source_bytes
        self.left = self.limit

    def read(self, path: Path) -> bytes:
        """The bytes of the file at ``path``, up to one past what is left (``OSError`` passes through)."""
        with path.open("rb") as f:
            return f.read(self.left + 1)

    def spend(self, data: str | bytes, name: str, included_at: tuple[str, int, int] | None = None) -> None:
        """Count ``data``, the text of file ``name`` (included at ``included_at``, if it was);
        ``LimitExceeded`` if it is more than is left: at the ``#include``, or at the first byte over."""
        size = len(data) if isinstance(data, bytes) or len(data) * 4 <= self.left else len(data.encode())
        if size <= self.left:
            self.left -= size
            return
        message = f"the program's source text is more than {size_text(self.limit)} (the limit of the compiler, " \
                  "lang/limits.py)"
        if included_at is not None:
            raise LimitExceeded(f"{message} with '{name}' included here", Span(*included_at))
        raw = data if isinstance(data, bytes) else data.encode()
        at = self.left              # the first byte over
        start = raw.rfind(b"\n", 0, at) + 1
        end = raw.find(b"\n", at)
        line = raw[start:end if end >= 0 else len(raw)].decode("utf-8", "replace")
        col = len(raw[start:at].decode("utf-8", "replace")) + 1
        raise LimitExceeded(f"{message}: it is crossed here", Span(name, raw.count(b"\n", 0, at) + 1, col),
                            source_line=line)
