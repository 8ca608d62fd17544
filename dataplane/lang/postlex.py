"""Token pass between lark's lexer and its LALR parser.

P4's grammar is not context free at the token level (P4-REFERENCE.md §3.2): the parser
must know which names are types, and which ``<`` opens a type-argument list. Programs
are small, so this pass reads the whole token list, collects the names declared as
types and the generic parameter lists, then retypes tokens:

* a name declared as a type becomes ``TYPE_IDENTIFIER``; a generic parameter is a type
  name only within its declaration, where it may be used before it is declared
  (``T lookahead<T>();``), so v1model's ``H``, ``M``, ``T`` ... stay free for programs;
* ``<`` after a type-taking keyword, or after a name when a type follows, becomes ``L_ANGLE_ARGS``;
* outside type arguments, adjacent ``>`` ``>`` become ``SHR`` and ``>`` ``>=`` become ``SHR_ASSIGN``.
"""
from __future__ import annotations

from typing import Iterable, Iterator

from lark import Token

_TYPE_DECL_KEYWORDS = {"HEADER", "STRUCT", "HEADER_UNION", "PARSER", "CONTROL", "PACKAGE"}
_ALWAYS_GENERIC = {"BIT", "INT", "VARBIT", "TUPLE", "VALUE_SET"}
_TYPE_START = {"BIT", "INT", "VARBIT", "BOOL", "ERROR", "STRING", "VOID", "TUPLE", "UNDERSCORE", "MATCH_KIND", "TYPE_IDENTIFIER"}
# P4_16 keywords this front end does not implement; the parser reports them as unsupported.
UNSUPPORTED_KEYWORDS = {"for": "'for' loops", "break": "'break'", "continue": "'continue'",
                        "list": "the 'list' type", "this": "'this'"}
_DECL_START = {"SEMICOLON", "RBRACE", "LBRACE", "ANNOTATION"}
# What may follow `typedef`/`type` in a declaration, before names are retyped.
_TYPEDEF_TARGET = {"BIT", "INT", "VARBIT", "BOOL", "ERROR", "STRING", "TUPLE", "MATCH_KIND", "IDENTIFIER"}

Scope = tuple[int, int, frozenset[str]]  # generic parameter names, type names in tokens[start:end]


def collect_type_names(tokens: list[Token], known: Iterable[str] = ()) -> set[str]:
    """Names that ``tokens`` declare as types program-wide, plus ``known``.

    Generic parameters are not included: see :func:`collect_type_params`.
    """
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
        elif (kind in ("TYPEDEF", "TYPE") and (i == 0 or tokens[i - 1].type in _DECL_START)
              and i + 1 < n and tokens[i + 1].type in _TYPEDEF_TARGET):
            # `type` is also usable as a variable name: `type = x;` declares nothing.
            j = i + 1
            while j < n and tokens[j].type not in ("SEMICOLON", "EQUAL", "LBRACE", "RBRACE"):
                j += 1
            if j < n and tokens[j].type == "SEMICOLON" and tokens[j - 1].type == "IDENTIFIER":
                names.add(str(tokens[j - 1]))
    return names


def collect_type_params(tokens: list[Token]) -> list[Scope]:
    """Generic parameter lists of declarations, each with the token range where its names are types.

    A list ``name<A, B>`` followed by ``(`` or ``{`` in a declaration is in scope from the start of
    that declaration (its return type may use the parameters) to its ``;`` or closing ``}``.
    """
    scopes: list[Scope] = []
    n = len(tokens)
    for i, tok in enumerate(tokens):
        if tok.type != "LESSTHAN" or i == 0 or tokens[i - 1].type != "IDENTIFIER":
            continue
        j = i + 1
        params = []
        while j + 1 < n and tokens[j].type == "IDENTIFIER" and tokens[j + 1].type in ("COMMA", "MORETHAN"):
            params.append(str(tokens[j]))
            if tokens[j + 1].type == "MORETHAN":
                break
            j += 2
        if params and j + 2 < n and tokens[j + 1].type == "MORETHAN" and tokens[j + 2].type in ("LPAR", "LBRACE"):
            if _is_declaration_context(tokens, i - 1):
                scopes.append((_declaration_start(tokens, i - 1), _declaration_end(tokens, j + 2),
                               frozenset(params)))
    return scopes


def _declaration_start(tokens: list[Token], k: int) -> int:
    while k > 0 and tokens[k - 1].type not in ("SEMICOLON", "LBRACE", "RBRACE"):
        k -= 1
    return k


def _declaration_end(tokens: list[Token], k: int) -> int:
    """Index just past the ``;`` or the body ``}`` ending the declaration whose parameters start at ``k``."""
    depth = 0
    n = len(tokens)
    while k < n:
        kind = tokens[k].type
        if kind in ("LPAR", "LBRACE"):
            depth += 1
        elif kind in ("RPAR", "RBRACE"):
            depth -= 1
            if depth == 0 and kind == "RBRACE":
                return k + 1
        elif kind == "SEMICOLON" and depth == 0:
            return k + 1
        k += 1
    return n


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


def retype(tokens: list[Token], type_names: set[str], scopes: Iterable[Scope] = ()) -> Iterator[Token]:
    """Yield ``tokens`` with type names, type-argument brackets and right shifts retyped.

    ``scopes`` adds generic parameter names that are types only within a token range.
    """
    n = len(tokens)
    scoped: set[int] = set()
    for start, end, params in scopes:
        scoped.update(k for k in range(start, min(end, n))
                      if tokens[k].type == "IDENTIFIER" and str(tokens[k]) in params)
    out: list[Token] = []
    for k, tok in enumerate(tokens):
        if tok.type == "IDENTIFIER" and str(tok) in UNSUPPORTED_KEYWORDS:
            # Valid P4 the grammar leaves out: give the parser a token it will reject by name.
            tok = Token.new_borrow_pos("UNSUPPORTED", str(tok), tok)
        if tok.type == "IDENTIFIER" and k + 1 < n and tokens[k + 1].type == "IDENTIFIER" and str(tok) != "for":
            # Two adjacent names only occur as `Type name`: treat an undeclared first one as a
            # type so the checker can say "unknown type" instead of a bare syntax error.
            tok = Token.new_borrow_pos("TYPE_IDENTIFIER", str(tok), tok)
        if tok.type == "IDENTIFIER" and (str(tok) in type_names or k in scoped):
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
        yield from retype(tokens, collect_type_names(tokens, self.known_types), collect_type_params(tokens))
