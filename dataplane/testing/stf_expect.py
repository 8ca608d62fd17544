"""Comparing an output packet with an STF ``expect`` line, as p4c's driver does.

p4c ``tools/testutils.py`` ``compare_pkt``: hex nibbles compared in order, ``*`` matches any
nibble, a received packet shorter than the pattern fails and a longer one passes (prefix
match) unless the pattern ended in ``$``, which requires the exact length.
"""
from __future__ import annotations

_ROW_BYTES = 16
_MAX_ROWS = 8


def _normalize(pattern: str) -> str:
    return "".join(pattern.split()).upper()


def expect_matches(pattern: str | None, exact_end: bool, got: bytes) -> bool:
    """True if packet ``got`` satisfies an expectation; a None pattern accepts any packet."""
    if pattern is None:
        return True
    pat, hexgot = _normalize(pattern), got.hex().upper()
    if len(hexgot) < len(pat) or (exact_end and len(hexgot) != len(pat)):
        return False
    return all(p == "*" or p == g for p, g in zip(pat, hexgot))


def _first_difference(pat: str, hexgot: str) -> int | None:
    for i, p in enumerate(pat):
        if i >= len(hexgot) or (p != "*" and p != hexgot[i]):
            return i
    return None


def describe_mismatch(pattern: str | None, exact_end: bool, got: bytes) -> str:
    """A readable report of why ``got`` fails the expectation, or "" if it matches.

    The first line gives the lengths, the second the first differing nibble; then rows of
    16 bytes show expected over received, with ``^`` under each nibble that differs (or is
    missing or extra) and ``..`` where one side has no data.
    """
    if expect_matches(pattern, exact_end, got):
        return ""
    assert pattern is not None  # a None pattern always matches
    pat, hexgot = _normalize(pattern), got.hex().upper()
    exp_bytes = (len(pat) + 1) // 2
    rule = "exactly" if exact_end else "at least"
    lines = [f"expected {rule} {exp_bytes} byte(s), received {len(got)}"]
    first = _first_difference(pat, hexgot)
    if first is not None:
        where = f"byte {first // 2} (nibble {first})"
        if first >= len(hexgot):
            lines.append(f"received packet ends at {where}")
        else:
            lines.append(f"first difference at {where}: expected '{pat[first]}', received '{hexgot[first]}'")
    elif exact_end:
        lines.append(f"received {len(got) - exp_bytes} extra byte(s) after the expected {exp_bytes}")
    span = max(len(pat), len(hexgot) if exact_end else min(len(hexgot), len(pat)))
    shown = 0
    for row_start in range(0, span, 2 * _ROW_BYTES):
        row_end = min(row_start + 2 * _ROW_BYTES, span)
        exp_cells, got_cells, marks = [], [], []
        bad = False
        for i in range(row_start, row_end):
            e = pat[i] if i < len(pat) else "."
            g = hexgot[i] if i < len(hexgot) else "."
            differs = (e == "." or g == ".") or (e != "*" and e != g)
            bad |= differs
            exp_cells.append(e)
            got_cells.append(g)
            marks.append("^" if differs else " ")
        if not bad:
            continue
        if shown == _MAX_ROWS:
            lines.append("  ... (more differing rows not shown)")
            break
        shown += 1
        lines.append(f"  {row_start // 2:04x}  expected  {_group(exp_cells)}")
        lines.append(f"        received  {_group(got_cells)}")
        lines.append(f"                  {_group(marks)}".rstrip())
    return "\n".join(lines)


def _group(cells: list[str]) -> str:
    """Nibbles joined two per byte, bytes separated by a space."""
    return " ".join("".join(cells[i:i + 2]) for i in range(0, len(cells), 2))
