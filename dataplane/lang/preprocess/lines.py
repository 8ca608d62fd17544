"""Physical lines into logical ones: backslash-newline splices and comments blanked out, every
newline kept so that output lines stay one-to-one with the file's."""
from __future__ import annotations

import re

__all__ = ["splice", "strip_comments"]

_COMMENT_OR_STRING = re.compile(r'"(?:\\.|[^"\\])*"|"|//[^\n]*|/\*.*?(?:\*/|\Z)', re.S)


def splice(lines: list[str]) -> list[tuple[str, int, int]]:
    """Join backslash-newline continuations: (logical text, first physical index, physical line count)."""
    logical: list[tuple[str, int, int]] = []
    i = 0
    while i < len(lines):
        start, text = i, lines[i]
        while text.endswith("\\") and i + 1 < len(lines):
            i += 1
            text = text[:-1] + lines[i]
        logical.append((text, start, i - start + 1))
        i += 1
    return logical


def strip_comments(text: str) -> tuple[str, int | None]:
    """Blank out comments with spaces, keeping newlines and string literals; also return where an
    unterminated block comment starts (or None)."""
    unterminated: list[int] = []

    def blank(m: re.Match[str]) -> str:
        s = m.group()
        if s.startswith('"'):
            return s
        if s.startswith("/*") and not (len(s) >= 4 and s.endswith("*/")):
            unterminated.append(m.start())
        return re.sub(r"[^\n]", " ", s)

    return _COMMENT_OR_STRING.sub(blank, text), (unterminated[0] if unterminated else None)
