"""Token pass between lark's lexer and its LALR parser.

P4's grammar is not context free at the token level (P4-REFERENCE.md §3.2): the parser
must know which names are types, and which ``<`` opens a type-argument list. Programs
are small, so this pass reads the whole token list, collects the names declared as
types (including generic parameters, which may be used before their declaration, as
in ``T lookahead<T>()``), then retypes tokens:

* a name declared as a type becomes ``TYPE_IDENTIFIER``;
* ``<`` after a type-taking keyword, or after a name when a type follows, becomes ``L_ANGLE_ARGS``;
* outside type arguments, adjacent ``>`` ``>`` become ``SHR`` and ``>`` ``>=`` become ``SHR_ASSIGN``.
"""
from __future__ import annotations

from typing import Iterable, Iterator

from lark import Token

_TYPE_DECL_KEYWORDS = {"HEADER", "STRUCT", "HEADER_UNION", "PARSER", "CONTROL", "PACKAGE"}
_ALWAYS_GENERIC = {"BIT", "INT", "VARBIT", "TUPLE", "VALUE_SET"}
_TYPE_START = {"BIT", "INT", "VARBIT", "BOOL", "ERROR", "STRING", "VOID", "TUPLE", "UNDERSCORE", "MATCH_KIND", "TYPE_IDENTIFIER"}
_DECL_START = {"SEMICOLON", "RBRACE", "LBRACE", "ANNOTATION"}


def collect_type_names(tokens: list[Token], known: Iterable[str] = ()) -> set[str]:
    """Names that ``tokens`` declare as types, plus ``known``."""
    names = set(known)
    n = len(tokens)
    for i, tok in enumerate(tokens):
        kind = tok.type
        if kind in _TYPE_DECL_KEYWORDS or kind == "ENUM":
            j = i + 1
            while j < n and tokens[j].type != "IDENTIFIER" and tokens[j].type != "LBRACE":
                j += 1
            if j < n and tokens[j].type == "IDENTIFIER":
                names.add(str(tokens[j]))
        elif kind == "EXTERN":
            # `extern Name {` or `extern Name<T> {` declares an object type; else it is a function.
            if i + 1 < n and tokens[i + 1].type == "IDENTIFIER":
                j = i + 2
                if j < n and tokens[j].type == "LESSTHAN":
                    j = _skip_angle(tokens, j)
                if j < n and tokens[j].type == "LBRACE":
                    names.add(str(tokens[i + 1]))
        elif kind in ("TYPEDEF", "TYPE") and (i == 0 or tokens[i - 1].type in _DECL_START):
            j = i + 1
            while j < n and tokens[j].type != "SEMICOLON":
                j += 1
            if j < n and tokens[j - 1].type == "IDENTIFIER":
                names.add(str(tokens[j - 1]))
        elif kind == "LESSTHAN" and i > 0 and tokens[i - 1].type == "IDENTIFIER":
            # Generic parameters: `name<A, B>(` or `name<A, B> {` where A, B are fresh names.
            j = i + 1
            params = []
            while j + 1 < n and tokens[j].type == "IDENTIFIER" and tokens[j + 1].type in ("COMMA", "MORETHAN"):
                params.append(str(tokens[j]))
                if tokens[j + 1].type == "MORETHAN":
                    break
                j += 2
            if params and j + 2 < n and tokens[j + 1].type == "MORETHAN" and tokens[j + 2].type in ("LPAR", "LBRACE"):
                if _is_declaration_context(tokens, i - 1):
                    names.update(params)
    return names


def _skip_angle(tokens: list[Token], j: int) -> int:
    depth = 0
    while j < len(tokens):
        if tokens[j].type == "LESSTHAN":
            depth += 1
        elif tokens[j].type == "MORETHAN":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return j


def _is_declaration_context(tokens: list[Token], name_index: int) -> bool:
    """True when the name at ``name_index`` is being declared (after a type or a declaring keyword)."""
    if name_index == 0:
        return False
    prev = tokens[name_index - 1]
    return prev.type in ("IDENTIFIER", "MORETHAN", "VOID", "BOOL", "EXTERN", "PARSER", "CONTROL",
                         "PACKAGE", "BIT", "INT", "ERROR", "STRING", "RSQB") and tokens[name_index - 2].type != "DOT" if name_index >= 2 else True


def retype(tokens: list[Token], type_names: set[str]) -> Iterator[Token]:
    """Yield ``tokens`` with type names, type-argument brackets and right shifts retyped."""
    n = len(tokens)
    out: list[Token] = []
    for tok in tokens:
        if tok.type == "IDENTIFIER" and str(tok) in type_names:
            tok = Token.new_borrow_pos("TYPE_IDENTIFIER", str(tok), tok)
        out.append(tok)
    angle_depth = 0
    i = 0
    while i < n:
        tok = out[i]
        kind = tok.type
        if kind == "LESSTHAN" and i > 0:
            prev = out[i - 1].type
            nxt = out[i + 1] if i + 1 < n else None
            if prev in _ALWAYS_GENERIC or (
                prev in ("IDENTIFIER", "TYPE_IDENTIFIER", "APPLY")
                and nxt is not None
                and nxt.type in _TYPE_START
                and not (nxt.type == "TYPE_IDENTIFIER" and i + 2 < n and out[i + 2].type == "DOT")
            ):
                angle_depth += 1
                yield Token.new_borrow_pos("L_ANGLE_ARGS", "<", tok)
                i += 1
                continue
        if kind == "MORETHAN":
            if angle_depth > 0:
                angle_depth -= 1
                yield tok
                i += 1
                continue
            nxt = out[i + 1] if i + 1 < n else None
            if nxt is not None and _adjacent(tok, nxt):
                if nxt.type == "MORETHAN":
                    yield Token.new_borrow_pos("SHR", ">>", tok)
                    i += 2
                    continue
                if nxt.type == "REL_OP" and str(nxt) == ">=":
                    yield Token.new_borrow_pos("SHR_ASSIGN", ">>=", tok)
                    i += 2
                    continue
        elif kind in ("SEMICOLON", "LBRACE", "RBRACE"):
            angle_depth = 0  # never let a stray bracket leak across statements
        yield tok
        i += 1


def _adjacent(a: Token, b: Token) -> bool:
    return a.line == b.line and a.end_column == b.column


class P4PostLex:
    """lark ``postlex`` hook applying :func:`collect_type_names` and :func:`retype`."""

    always_accept = ()

    def __init__(self, known_types: Iterable[str] = ()):
        self.known_types = set(known_types)

    def process(self, stream: Iterable[Token]) -> Iterator[Token]:
        tokens = list(stream)
        yield from retype(tokens, collect_type_names(tokens, self.known_types))
