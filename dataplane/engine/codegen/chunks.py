"""Keep Python's compiler linear on big programs.

The generated module defines every parser, control, action and table function inside
``build(_rt)``, as closures over one switch's tables and externs. Python's symbol-table pass
(CPython's and PyPy's alike) copies the set of names bound in the enclosing functions for every
nested function, so a ``build`` holding N closures over N names compiles in O(N^2): minutes for
a program of 10,000 headers. Two remedies, both applied only to big programs, so that the code
generated for ordinary ones stays as it is:

* :func:`split_build` moves ``build``'s statements into module-level functions ``_build_part_K``
  of at most ``MAX_DEFS`` closures each; each takes the names it uses from earlier parts as
  parameters and returns the names it binds, so every closure still reads its variables from
  cells, as before;
* :func:`compile_in_pieces` compiles the module 20,000 lines at a time, so that the compiler's
  peak memory is a piece's and not the whole module's.
"""
from __future__ import annotations

import linecache
import re
from typing import Any

from dataplane.engine.code_cache import compiled

MAX_DEFS = 64              # nested functions per part of ``build``
PIECE_LINES = 20000        # lines per separately compiled piece of the module

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DEF = re.compile(r"(?:async\s+)?(?:def|class)\s+([A-Za-z_][A-Za-z0-9_]*)")
_ASSIGN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*(?:\s*,\s*[A-Za-z_][A-Za-z0-9_]*)*)\s*,?\s*=(?!=)")
_STORE = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*(?:\[.*\])?\s*=(?!=)")      # x[k] = ..., x.a = ...
_CALL = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*\(")
_STRING = re.compile(r"'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"")
_CONTROL = ("if ", "elif ", "else:", "try:", "except:", "except ", "finally:", "pass")
_TOP = re.compile(r"(?:class |def |[A-Za-z_][A-Za-z0-9_]* = )")


class _Stmt:
    """One statement of ``build``'s body: its lines, the names it binds in ``build``'s scope,
    the identifiers it mentions and how many functions it defines."""

    __slots__ = ("lines", "binds", "idents", "defs")

    def __init__(self, lines: list[str]):
        self.lines = lines
        self.binds: list[str] = []
        self.idents: set[str] = set()
        self.defs = 0


def split_build(body: list[str], max_defs: int | None = None) -> tuple[list[str], list[str]] | None:
    """Split the lines of ``build``'s body (indented by 4) into module-level part functions.

    Returns (the parts' lines, the new body of ``build``), or None when the body is small or has
    a statement whose bindings this module does not recognize (the caller keeps one ``build``).
    """
    max_defs = MAX_DEFS if max_defs is None else max_defs
    stmts = _statements(body)
    if not stmts or any(s.lines[0].startswith("    return ") != (i == len(stmts) - 1) for i, s in enumerate(stmts)):
        return None  # only the last statement returns (parts return their names instead)
    final = stmts.pop()
    if sum(s.defs for s in stmts) <= max_defs:
        return None
    bound_at: dict[str, int] = {"_rt": -1}
    for i, s in enumerate(stmts):
        for name in s.binds:
            if bound_at.setdefault(name, i) != i:
                return None  # bound twice: parts would each hold their own copy
    # A closure may use a name bound later in build (it is looked up when called): keep the
    # statement that uses it and the one that binds it in one part.
    reach = [max((bound_at[n] for n in s.idents if bound_at.get(n, -1) > i), default=i) for i, s in enumerate(stmts)]
    parts: list[str] = []
    new_body: list[str] = []
    start = 0
    known: set[str] = {"_rt"}
    while start < len(stmts):
        end, defs, last = start, 0, reach[start]
        while end < len(stmts) and (end == start or end <= last or defs + stmts[end].defs <= max_defs):
            defs += stmts[end].defs
            last = max(last, reach[end])
            end += 1
        chunk = stmts[start:end]
        used = set().union(*(s.idents for s in chunk))
        params = sorted(used & known)
        binds = [n for s in chunk for n in dict.fromkeys(s.binds)]
        name = f"_build_part_{len(new_body)}"
        parts.append(f"def {name}({', '.join(params)}):")
        for s in chunk:
            parts.extend(s.lines)
        call = f"{name}({', '.join(params)})"
        if binds:
            parts.append(f"    return ({''.join(b + ', ' for b in binds)})")
            new_body.append(f"    {''.join(b + ', ' for b in binds)}= {call}")
        else:
            parts.append("    return None")
            new_body.append(f"    {call}")
        parts.append("")
        known.update(binds)
        start = end
    return parts, new_body + final.lines


def _statements(body: list[str]) -> list[_Stmt] | None:
    """``body`` cut into statements, with their bindings; None if a binding form is not known."""
    stmts: list[_Stmt] = []
    for line in body:
        if line.startswith("    ") and line[4:5] not in (" ", "") and not line[4:].startswith(
                ("else:", "elif ", "except", "finally:")):
            stmts.append(_Stmt([line]))
        elif stmts:
            stmts[-1].lines.append(line)
        elif line.strip():
            return None
    for s in stmts:
        if not _scan(s):
            return None
    return stmts


def _scan(s: _Stmt) -> bool:
    """Fill in ``s.binds``, ``s.defs`` and ``s.idents``; False on a line whose effect on
    ``build``'s names is not recognized."""
    inside = -1          # indentation of the function being skipped over, -1 when in build's scope
    for k, line in enumerate(s.lines):
        text = line.lstrip(" ")
        if not text:
            continue
        indent = len(line) - len(text)
        if inside >= 0 and indent > inside:
            if text.startswith(("def ", "async def ")):
                s.defs += 1
            continue
        inside = -1
        if text.startswith("return ") and not (k == 0 and indent == 4):
            return False
        if not _balanced(text) or ":=" in text:
            return False
        m = _DEF.match(text)
        if m:
            s.binds.append(m.group(1))
            s.defs += 1
            inside = indent
        elif m := _ASSIGN.match(text):
            s.binds.extend(n.strip() for n in m.group(1).split(","))
        elif text.startswith(_CONTROL):
            if " as " in text:
                return False
        elif not (_STORE.match(text) or _CALL.match(text) or text.startswith("return ")):
            return False
    s.idents = set(_IDENT.findall("\n".join(s.lines)))
    return True


def _balanced(text: str) -> bool:
    """True when ``text`` closes every bracket it opens (string literals aside): one logical line."""
    bare = _STRING.sub("", text)
    return (bare.count("(") == bare.count(")") and bare.count("[") == bare.count("]")
            and bare.count("{") == bare.count("}"))


def compile_in_pieces(source: str, filename: str, namespace: dict[str, Any], piece_lines: int | None = None) -> None:
    """Compile and run ``source`` in ``namespace`` a piece at a time, cutting between top-level
    statements (``class``, ``def``, ``name = ...`` at column 0).

    The first piece is compiled as ``filename``; a later one starting after line N of the source
    as ``filename`` with ``@N`` before its closing ``>`` (``<p4:x.p4:1f2e3d4c@40000>``), its lines
    registered with ``linecache`` so that tracebacks show them. (Moving each piece's code objects
    down with ``code.replace`` costs O(cells x arguments) per function in CPython: minutes for
    a control with 40,000 closure variables; padding the text with newlines costs the sum of
    the offsets.) A ``SyntaxError`` gives its line in the whole source.
    """
    piece_lines = PIECE_LINES if piece_lines is None else piece_lines
    lines = source.splitlines(True)
    start = 0
    while start < len(lines):
        end = min(start + piece_lines, len(lines))
        while end < len(lines) and not _TOP.match(lines[end]):
            end += 1
        name = filename if start == 0 else piece_filename(filename, start)
        piece = lines[start:end]
        if start:
            linecache.cache[name] = (sum(map(len, piece)), None, piece, name)
        try:
            code = compiled("".join(piece), name)
        except SyntaxError as err:
            if err.lineno is not None:
                err.lineno += start
            raise
        exec(code, namespace)
        start = end


def piece_filename(filename: str, offset: int) -> str:
    """The name of the piece of ``filename`` that starts after line ``offset`` (see :func:`compile_in_pieces`)."""
    return f"{filename[:-1]}@{offset}>" if filename.endswith(">") else f"{filename}@{offset}"
