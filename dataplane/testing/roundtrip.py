"""The printer's round trip, as pycparser's tests do for C: compile a program, print its parse tree
as P4 (``dataplane.ir.printer``), compile the printed text, and compare both the parse trees and
the checked program IR, spans aside. ``tests/ir/test_printer.py`` runs it on the built-in and
front-end test programs; ``tools/roundtrip.py`` on every ``.p4`` file of the repository."""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from dataplane.errors import CompileError, Span
from dataplane.lang.frontend import compile_file, compile_source, printed_source


def diff_ignoring_spans(a: Any, b: Any, path: str = "$", _equal: set[tuple[int, int]] | None = None) -> str | None:
    """The first place where ``a`` and ``b`` differ (a path and both values), or None when they are
    equal but for source positions. Walks data classes, slotted records, tuples, lists and dicts.

    The checked IR shares its nodes (every use of a declaration holds the declaration itself), so
    a pair of nodes is walked once: ``_equal`` holds the pairs found equal so far (both programs
    stay alive meanwhile, so their ids stand for them)."""
    if type(a) is not type(b):
        return f"{path}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, Span):
        return None
    if _equal is None:
        _equal = set()
    pair = (id(a), id(b))
    if pair in _equal:
        return None
    if dataclasses.is_dataclass(a):
        names: Any = (f.name for f in dataclasses.fields(a))
    elif isinstance(a, (tuple, list)):
        if len(a) != len(b):
            return f"{path}: {len(a)} items != {len(b)}"
        found = next((d for i, (x, y) in enumerate(zip(a, b))
                      if (d := diff_ignoring_spans(x, y, f"{path}[{i}]", _equal))), None)
        if found is None:
            _equal.add(pair)
        return found
    elif isinstance(a, dict):
        if list(a) != list(b):
            return f"{path}: keys {list(a)} != {list(b)}"
        found = next((d for k in a if (d := diff_ignoring_spans(a[k], b[k], f"{path}[{k!r}]", _equal))), None)
        if found is None:
            _equal.add(pair)
        return found
    elif getattr(type(a), "__slots__", None) and not isinstance(a, (int, str, bytes)):
        names = (n for klass in type(a).__mro__ for n in getattr(klass, "__slots__", ()))
    else:
        return None if a == b else f"{path}: {a!r} != {b!r}"
    for name in names:
        if name != "span":
            d = diff_ignoring_spans(getattr(a, name, None), getattr(b, name, None), f"{path}.{name}", _equal)
            if d:
                return d
    _equal.add(pair)
    return None


def round_trip(path: str | Path) -> str | None:
    """Compile ``path``, print it, compile the printed text (as if it were ``path``, so quoted
    includes resolve the same) and compare; None when the round trip holds, else what differs.
    Raises ``CompileError`` only when ``path`` itself does not compile."""
    first = compile_file(path)
    text = printed_source(first)
    try:
        second = compile_source(text, str(path))
    except CompileError as err:
        return f"the printed program does not compile:\n{err.render()}"
    return (diff_ignoring_spans(first.syntax, second.syntax, "syntax")
            or diff_ignoring_spans(first.program, second.program, "program"))
