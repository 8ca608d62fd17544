"""A readable record of one packet's path, in the spirit of BMv2's log.

The generated code calls these hooks only when a trace is attached to the packet
context, so an untraced packet pays one ``is not None`` test per hook site. Parser states,
tables, actions and extern calls end with their P4 position (`` at router.p4:58``), as
BMv2's log cites the source of what it runs.
"""
from __future__ import annotations

import re
from typing import Any

# ``field=123`` in a header's repr: field values are shown in hex, like table keys and action data.
_FIELD_VALUE = re.compile(r"=(-?)(\d+)(?=[,)])")


class Trace:
    """Collects trace lines; ``errors`` maps error codes to names for parser errors."""

    def __init__(self, errors: tuple[str, ...] = ()):
        self.lines: list[str] = []
        self.errors = errors

    def _add(self, text: str) -> None:
        self.lines.append(text)

    def packet_in(self, port: int, data: bytes) -> None:
        self._add(f"packet in: port {port}, {len(data)} bytes")

    def state(self, name: str, where: str = "") -> None:
        self._add(f"  parser state {name}{_at(where)}")

    def extract(self, name: str, header: Any) -> None:
        shown = _FIELD_VALUE.sub(lambda m: f"={m.group(1)}{int(m.group(2)):#x}", repr(header))
        self._add(f"    extracted {name}: {shown}")

    def parser_error(self, code: int) -> None:
        name = self.errors[code] if 0 <= code < len(self.errors) else str(code)
        self._add(f"  parser error: {name} (the packet continues into ingress, as in BMv2)")

    def table(self, name: str, key: tuple, entry: Any, where: str = "") -> None:
        keys = ", ".join(hex(k) if isinstance(k, int) and not isinstance(k, bool) else repr(k) for k in key)
        if entry.hit:
            self._add(f"  table {name}: key ({keys}) hit entry {entry.handle} -> {entry.name}{_at(where)}")
        else:
            self._add(f"  table {name}: key ({keys}) miss -> default {entry.name}{_at(where)}")

    def action(self, name: str, args: tuple, where: str = "") -> None:
        shown = ", ".join(hex(a) if isinstance(a, int) else repr(a) for a in args)
        self._add(f"    action {name}({shown}){_at(where)}")

    def extern(self, name: str, where: str = "") -> None:
        self._add(f"    extern {name}(){_at(where)}")

    def log(self, text: str) -> None:
        self._add(f"    log: {text}")

    def drop(self, where: str, why: str = "egress_spec 511") -> None:
        self._add(f"  dropped in {where} ({why})")

    def packet_out(self, port: int, data: bytes) -> None:
        self._add(f"packet out: port {port}, {len(data)} bytes")

    def __str__(self) -> str:
        return "\n".join(self.lines)


def _at(where: str) -> str:
    return f" at {where}" if where else ""
