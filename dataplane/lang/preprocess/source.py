"""What the preprocessor hands on: the text with one output line per input line, and the maps
that point a message at the original file, line and column."""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Mapping

from dataplane.errors import Span

__all__ = ["PreprocessedSource", "line_of"]


@dataclass
class PreprocessedSource:
    """A preprocessed program plus what is needed to point messages at the original files."""

    text: str
    line_map: list[tuple[str, int]]
    files: dict[str, str]
    col_maps: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    system_files: frozenset[str] = frozenset()  # files from the bundled p4include: no warnings there
    _split: dict[str, list[str]] = field(default_factory=dict, repr=False, compare=False)

    def locate(self, line: int, col: int) -> Span:
        """Map a 1-based output ``line``/``col`` to a span in the original file.

        Lines past the end (a parser's end-of-input position) continue counting
        from the last mapped line. Within a macro expansion the column is clamped
        to the macro name, since the expansion text exists in no file.
        """
        if not self.line_map:
            return Span("<input>", line, col)
        index = min(max(line, 1), len(self.line_map)) - 1
        file, src_line = self.line_map[index]
        if index != line - 1:
            return Span(file, src_line + line - 1 - index, col)
        breaks = self.col_maps.get(index)
        if not breaks:
            return Span(file, src_line, col)
        i = bisect.bisect_right([out for out, _ in breaks], col) - 1
        if i < 0:
            return Span(file, src_line, col)
        out, src = breaks[i]
        mapped = src + col - out
        if i + 1 < len(breaks):
            mapped = min(mapped, max(breaks[i + 1][1] - 1, src))
        return Span(file, src_line, mapped)

    def source_line(self, span: Span) -> str | None:
        """The original text of ``span.line`` in ``span.file``, or None if unknown."""
        return line_of(self.files, span.file, span.line, self._split)


def line_of(files: Mapping[str, str], file: str, line: int, split: dict[str, list[str]]) -> str | None:
    """Line ``line`` of ``file``; ``split`` keeps each file's lines, so that a program with thousands
    of diagnostics splits each of its files once rather than once per message."""
    lines = split.get(file)
    if lines is None:
        text = files.get(file)
        if text is None:
            return None
        lines = split[file] = text.split("\n")
    if line < 1:
        return None
    return lines[line - 1].removesuffix("\r") if line <= len(lines) else None
