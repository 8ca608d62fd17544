"""``#if``/``#elif`` expressions of the preprocessor: lexing, macro resolution and evaluation.

The grammar is C's integer constant expression minus the bitwise, shift and ``?:``
operators (P4 programs only compare version numbers and test ``defined``). Names
still unknown after macro expansion count as 0, as in C. Integers are cpp's: a constant
has at most 64 bits, and arithmetic wraps around as its ``intmax_t`` does (so a line of
multiplications cannot grow numbers without end).
"""
from __future__ import annotations

import re
from typing import Callable, Mapping, Union

from dataplane.lang.limits import DEFAULT_LIMITS
from dataplane.lang.preprocess.macros import Budget, Macro

_TOKEN = re.compile(r"\s*(?:(0[xX][0-9a-fA-F]+|[0-9]+)[uUlL]*(?![A-Za-z0-9_])|([A-Za-z_][A-Za-z0-9_]*)"
                    r"|(&&|\|\||==|!=|<=|>=|[-+*/%()!<>~])|(\S+))")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

Token = Union[int, str]


class ExprError(Exception):
    """A malformed ``#if`` expression; the message says what is wrong."""


class ExprTooDeep(ExprError):
    """An ``#if`` expression nested past ``CompileLimits.nesting`` (a ``limit`` error)."""


def evaluate_condition(expr: str, macros: Mapping[str, Macro], budget: Budget | None = None) -> bool:
    """Whether an ``#if`` expression holds, given the macros defined at that point; ``budget``
    bounds its macro expansion (``macros.ExpansionLimit``) and how deep it nests."""
    if budget is None:
        budget = Budget()
    return evaluate(expand(expr, macros, budget=budget), budget.limits.nesting) != 0


def lex(expr: str) -> list[Token]:
    """Split ``expr`` into integers, names and operators (``0x`` is hex, a leading 0 octal, as in C)."""
    tokens: list[Token] = []
    for number, name, op, junk in _TOKEN.findall(expr):
        if junk:
            raise ExprError(f"unexpected '{junk}'")
        if number and len(number) > 24:     # 2**64 has 20 digits, 22 in octal, 16 after 0x
            raise ExprError(f"integer constant is too large: {number[:24]}...")
        try:
            value = int(number, 16 if number[:2] in ("0x", "0X") else 8 if number[0] == "0" else 10) if number else None
        except ValueError:
            raise ExprError(f"invalid integer '{number}'") from None
        if value is not None and value >= 1 << 64:
            raise ExprError(f"integer constant is too large: {number}")
        tokens.append(value if value is not None else name or op)
    return tokens


def expand(expr: str, macros: Mapping[str, Macro], active: frozenset[str] = frozenset(),
           budget: Budget | None = None, depth: int = 0) -> list[Token]:
    """Tokens of ``expr`` with ``defined`` resolved and macros expanded (unknown names become 0).

    ``active`` holds the macros being expanded, so a self-referencing macro stops; ``budget``
    counts the text of every body expanded and how deep (``depth``) expansions nest.
    """
    if budget is None:
        budget = Budget()
    raw = lex(expr)
    out: list[Token] = []
    i = 0
    while i < len(raw):
        tok, i = raw[i], i + 1
        if tok == "defined":
            paren = raw[i:i + 1] == ["("]
            name = raw[i + paren] if i + paren < len(raw) else None
            if not (isinstance(name, str) and _NAME.fullmatch(name)):
                raise ExprError("'defined' expects a macro name")
            if paren and raw[i + 2:i + 3] != [")"]:
                raise ExprError("missing ')' after 'defined'")
            out.append(int(name in macros))
            i += 1 + 2 * paren
        elif isinstance(tok, str) and _NAME.fullmatch(tok):
            body = macros.get(tok)
            if isinstance(body, str) and tok not in active:
                budget.enter(depth + 1)
                budget.spend(len(body))
                out.extend(expand(body, macros, active | {tok}, budget, depth + 1))
            else:
                out.append(0)
        else:
            out.append(tok)
    return out


def _wrap(v: int) -> int:
    """``v`` as cpp's 64-bit ``intmax_t`` arithmetic leaves it."""
    return ((v + (1 << 63)) & ((1 << 64) - 1)) - (1 << 63)


def _div(a: int, b: int) -> int:
    if b == 0:
        raise ExprError("division by zero")
    q = abs(a) // abs(b)  # C truncates towards zero
    return q if (a < 0) == (b < 0) else -q


_BINARY: dict[str, tuple[int, Callable[[int, int], int]]] = {
    "||": (1, lambda a, b: int(bool(a) or bool(b))), "&&": (2, lambda a, b: int(bool(a) and bool(b))),
    "==": (3, lambda a, b: int(a == b)), "!=": (3, lambda a, b: int(a != b)),
    "<": (4, lambda a, b: int(a < b)), ">": (4, lambda a, b: int(a > b)),
    "<=": (4, lambda a, b: int(a <= b)), ">=": (4, lambda a, b: int(a >= b)),
    "+": (5, lambda a, b: _wrap(a + b)), "-": (5, lambda a, b: _wrap(a - b)),
    "*": (6, lambda a, b: _wrap(a * b)), "/": (6, lambda a, b: _wrap(_div(a, b))),
    "%": (6, lambda a, b: _wrap(a - b * _div(a, b))),
}
_UNARY: dict[str, Callable[[int], int]] = {"!": lambda v: int(not v), "-": lambda v: _wrap(-v), "+": lambda v: v,
                                           "~": lambda v: _wrap(~v)}


def evaluate(tokens: list[Token], max_depth: int = DEFAULT_LIMITS.nesting) -> int:
    """Evaluate tokens (names already resolved to integers) by precedence climbing; operators
    and parentheses nested more than ``max_depth`` deep are ``ExprTooDeep``."""
    pos = 0
    depth = 0

    def peek() -> Token | None:
        return tokens[pos] if pos < len(tokens) else None

    def unary() -> int:
        nonlocal pos, depth
        tok, pos = peek(), pos + 1
        if isinstance(tok, int):
            return tok
        depth += 1
        try:
            if depth > max_depth:
                raise ExprTooDeep(f"the expression nests more than {max_depth} levels deep "
                                  "(the limit of the compiler, lang/limits.py)")
            return _operand(tok)
        finally:
            depth -= 1

    def _operand(tok: Token | None) -> int:
        nonlocal pos
        if tok in _UNARY:
            return _UNARY[tok](unary())
        if tok == "(":
            value = binary(1)
            if peek() != ")":
                raise ExprError("missing ')'")
            pos += 1
            return value
        raise ExprError(f"unexpected '{tok}'" if tok is not None else "unexpected end of expression")

    def binary(min_prec: int) -> int:
        nonlocal pos
        left = unary()
        while isinstance(op := peek(), str) and op in _BINARY and _BINARY[op][0] >= min_prec:
            pos += 1
            left = _BINARY[op][1](left, binary(_BINARY[op][0] + 1))
        return left

    if not tokens:
        raise ExprError("missing expression")
    value = binary(1)
    if pos < len(tokens):
        raise ExprError(f"unexpected '{tokens[pos]}'")
    return value
