"""Preprocessor macros: definitions and expansion, object-like and function-like, by C's rules.

A function-like macro's arguments are split at top-level commas and macro-expanded before
they replace the parameters, except where the body stringifies one (``#x``) or pastes it
(``a ## b``), which take the argument as written; the result is scanned again with the
macro itself disabled, so a macro never expands inside its own expansion. A function-like
macro name not followed by ``(`` is left alone, as in C.
"""
from __future__ import annotations

import re
from typing import Mapping, Union

from dataplane.errors import shown
from dataplane.lang.limits import DEFAULT_LIMITS, CompileLimits, size_text
from dataplane.records import record

# A pp-number (``8w0xFF``) is one token so its letters are never taken for macro names.
TOKEN = re.compile(r'(?P<str>"(?:\\.|[^"\\])*"?)|(?P<num>[0-9][A-Za-z0-9_]*)|(?P<id>[A-Za-z_][A-Za-z0-9_]*)')
_NAME = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PARAMS = re.compile(r"\(\s*((?:[A-Za-z_][A-Za-z0-9_]*\s*,\s*)*(?:[A-Za-z_][A-Za-z0-9_]*|\.\.\.)?)\s*\)")
_BODY_TOKEN = re.compile(r'##|#|"(?:\\.|[^"\\])*"?|[0-9][A-Za-z0-9_]*|[A-Za-z_][A-Za-z0-9_]*|\s+|.')


@record(frozen=True, slots=True)
class FunctionMacro:
    """``#define NAME(params) body``; a trailing ``...`` collects the rest as ``__VA_ARGS__``."""

    params: tuple[str, ...]
    body: str
    variadic: bool = False


Macro = Union[str, FunctionMacro]


class MacroError(Exception):
    """A bad definition or invocation; ``col`` is 1-based in the text being expanded (0 if unknown)."""

    def __init__(self, message: str, col: int = 0):
        super().__init__(message)
        self.col = col


class Unterminated(MacroError):
    """A function-like macro's argument list does not close on this line: join the next one."""


class ExpansionLimit(MacroError):
    """An expansion past its ``Budget``; ``whole_unit``: the program's, not only this line's."""

    def __init__(self, message: str, col: int = 0, whole_unit: bool = False):
        super().__init__(message, col)
        self.whole_unit = whole_unit


class Budget:
    """What macro expansion may still make in one program (``CompileLimits``): bytes of text,
    for the program and for the line being expanded, and how deep expansions may nest.
    Every macro body put in place counts, its arguments substituted, at every level of a
    nested expansion (what the expansion costs to make; what it makes is no longer).
    ``new_line`` starts a line's count."""

    def __init__(self, limits: CompileLimits = DEFAULT_LIMITS):
        self.limits = limits
        self.unit_left = limits.expansion_bytes
        self.line_left = limits.line_expansion_bytes

    def new_line(self) -> None:
        self.line_left = self.limits.line_expansion_bytes

    def spend(self, n: int) -> None:
        """Count ``n`` bytes of expansion; ``ExpansionLimit`` past either bound."""
        self.unit_left -= n
        self.line_left -= n
        if self.unit_left < 0:
            raise ExpansionLimit(f"macro expansion made more than {size_text(self.limits.expansion_bytes)} of text "
                                 "in this program (the limit of the compiler, lang/limits.py)", whole_unit=True)
        if self.line_left < 0:
            raise ExpansionLimit(f"the macros of this line expand to more than "
                                 f"{size_text(self.limits.line_expansion_bytes)} of text "
                                 "(the limit of the compiler, lang/limits.py)")

    def enter(self, depth: int) -> None:
        """``ExpansionLimit`` if an expansion ``depth`` levels deep is one too many."""
        if depth > self.limits.macro_depth:
            raise ExpansionLimit(f"macros expand inside one another more than {self.limits.macro_depth} levels deep "
                                 "(the limit of the compiler, lang/limits.py)")


def define_problem(name: str, value: str) -> str | None:
    """Why ``name``/``value`` cannot be a macro defined from outside the program (``-D NAME=VALUE``,
    the ``defines`` of the API), or None: the name must be an identifier (cpp's rule; a
    function-like macro cannot be given this way) and the value one line, as a ``#define`` is."""
    if not name:
        return "the macro name is missing"
    if _IDENTIFIER.fullmatch(name) is None:
        return f"{shown(name)} is not a macro name (a letter or '_', then letters, digits or '_')"
    if name == "defined":
        return "'defined' cannot be used as a macro name"
    if "\n" in value or "\r" in value:
        return f"the value of macro {shown(name)} runs over more than one line"
    return None


def parse_define(rest: str) -> tuple[str, Macro]:
    """The name and definition of ``#define`` whose text after the keyword is ``rest``."""
    m = _NAME.match(rest)
    if m is None:
        raise MacroError("#define expects a macro name")
    name = m.group(1)
    if name == "defined":
        raise MacroError("'defined' cannot be used as a macro name")
    after = rest[m.end():]
    if not after.startswith("("):       # a blank before '(' makes an object-like macro
        return name, after.strip()
    p = _PARAMS.match(after)
    if p is None:
        raise MacroError(f"invalid parameter list in the definition of macro '{name}'")
    params = [x.strip() for x in p.group(1).split(",") if x.strip()]
    variadic = bool(params) and params[-1] == "..."
    if variadic:
        params[-1] = "__VA_ARGS__"
    if len(set(params)) != len(params):
        raise MacroError(f"duplicate parameter in the definition of macro '{name}'")
    return name, FunctionMacro(tuple(params), after[p.end():].strip(), variadic)


def expand(text: str, macros: Mapping[str, Macro], active: frozenset[str] = frozenset(),
           budget: Budget | None = None, depth: int = 0) -> tuple[str, list[tuple[int, int]]]:
    """``text`` with its macros expanded (not inside strings), and column breakpoints
    (out_col, src_col) for mapping positions back, empty when no length changed.

    ``budget`` bounds the text made and the depth (``ExpansionLimit``, at the column of the
    line's macro that crossed it); ``depth`` is how deep in another expansion this one is."""
    if budget is None:
        budget = Budget()
    parts: list[str] = []
    breaks: list[tuple[int, int]] = []
    pos = out_len = 0
    shifted = False
    scan = 0
    while (m := TOKEN.search(text, scan)) is not None:
        scan = m.end()
        name = m.group("id")
        if name is None or name in active or name not in macros:
            continue
        macro = macros[name]
        try:
            budget.enter(depth + 1)
            if isinstance(macro, FunctionMacro):
                call = _arguments(text, m.end(), name)
                if call is None:
                    continue
                args, end = call
                body = _fill(name, macro, args, macros, active, m.start() + 1, budget, depth)
            else:
                body, end = macro, m.end()
            budget.spend(len(body))
            body = expand(body, macros, active | {name}, budget, depth + 1)[0]
        except ExpansionLimit as err:
            if depth == 0:      # where the line's own text invokes the macro that led to it
                err.col = m.start() + 1
            raise
        parts.append(text[pos:m.start()])
        out_len += m.start() - pos
        breaks.append((out_len + 1, m.start() + 1))
        parts.append(body)
        out_len += len(body)
        breaks.append((out_len + 1, end + 1))
        shifted = shifted or len(body) != end - m.start()
        pos = scan = end
    parts.append(text[pos:])
    return "".join(parts), (breaks if shifted else [])


def _arguments(text: str, i: int, name: str) -> tuple[list[str], int] | None:
    """The arguments of an invocation whose name ends at ``i``, and where it ends; None if no
    ``(`` follows. Raises ``Unterminated`` if the list does not close in ``text``."""
    j = i
    while j < len(text) and text[j] in " \t":
        j += 1
    if j >= len(text) or text[j] != "(":
        return None
    args: list[str] = []
    depth, start, k = 0, j + 1, j
    while k < len(text):
        ch = text[k]
        if ch == '"':
            s = TOKEN.match(text, k)
            k = s.end() if s is not None else k + 1
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                args.append(text[start:k].strip())
                return args, k + 1
        elif ch == "," and depth == 1:
            args.append(text[start:k].strip())
            start = k + 1
        k += 1
    raise Unterminated(f"unterminated argument list invoking macro '{name}'", i - len(name) + 1)


def _fill(name: str, macro: FunctionMacro, args: list[str], macros: Mapping[str, Macro],
          active: frozenset[str], col: int, budget: Budget, depth: int) -> str:
    """The body of ``macro`` with its parameters replaced by ``args``."""
    params = macro.params
    if args == [""] and not params:
        args = []
    if macro.variadic and len(args) >= len(params) - 1:
        args = args[:len(params) - 1] + [", ".join(args[len(params) - 1:])]
    if len(args) != len(params):
        raise MacroError(f"macro '{name}' takes {len(params)} argument(s), got {len(args)}", col)
    raw = dict(zip(params, args))
    tokens = _BODY_TOKEN.findall(macro.body)
    out: list[str] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        nxt = _next_solid(tokens, i + 1)
        if tok == "#" and nxt is not None and tokens[nxt] in raw:
            out.append(_stringify(raw[tokens[nxt]]))
            i = nxt + 1
        elif tok == "##":
            while out and out[-1].isspace():
                out.pop()
            if nxt is not None:
                out.append(raw.get(tokens[nxt], tokens[nxt]))
                i = nxt + 1
            else:
                i += 1
        elif tok in raw:
            pasted = nxt is not None and tokens[nxt] == "##"
            out.append(raw[tok] if pasted else expand(raw[tok], macros, active, budget, depth + 1)[0])
            i += 1
        else:
            out.append(tok)
            i += 1
    return "".join(out)


def _next_solid(tokens: list[str], i: int) -> int | None:
    while i < len(tokens) and tokens[i].isspace():
        i += 1
    return i if i < len(tokens) else None


def _stringify(arg: str) -> str:
    return '"' + " ".join(arg.split()).replace("\\", "\\\\").replace('"', '\\"') + '"'
