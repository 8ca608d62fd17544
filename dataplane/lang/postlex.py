"""Token pass between lark's lexer and its LALR parser.

P4's grammar is not context free at the token level (P4-REFERENCE.md §3.2): the parser
must know which names are types, and which ``<`` opens a type-argument list. p4c's lexer
asks the parser's symbol table; this pass reads the whole token list instead and follows
the same scoping rules:

* a name becomes ``TYPE_IDENTIFIER`` from its declaration as a type onwards (a type declared
  later does not leak into earlier code, so a program's ``parser p`` leaves v1model's
  ``Parser<H, M> p`` alone); a generic parameter is a type name only within its
  declaration, where it may be used before it is declared (``T lookahead<T>();``);
* a parameter, variable, constant, instance, action, table or state declared with a type's
  name shadows the type in its scope (the rest of the block, or the body that follows a
  parameter list), where the name is an ``IDENTIFIER`` again. The grammar takes a type name
  wherever a declared name is expected, as p4c's does;
* ``<`` after a type-taking keyword, or after a name when a type follows, becomes ``L_ANGLE_ARGS``;
* outside type arguments, adjacent ``>`` ``>`` become ``SHR`` and ``>`` ``>=`` become ``SHR_ASSIGN``.
"""
from __future__ import annotations

from typing import Iterable, Iterator, Mapping

from lark import Token

_TYPE_DECL_KEYWORDS = {"HEADER", "STRUCT", "HEADER_UNION", "PARSER", "CONTROL", "PACKAGE"}
_ALWAYS_GENERIC = {"BIT", "INT", "VARBIT", "TUPLE", "VALUE_SET", "LIST"}
_TYPE_START = {"BIT", "INT", "VARBIT", "BOOL", "ERROR", "STRING", "VOID", "TUPLE", "UNDERSCORE", "MATCH_KIND", "TYPE_IDENTIFIER"}
# P4_16 keywords this front end does not implement; the parser reports them as unsupported.
UNSUPPORTED_KEYWORDS: dict[str, str] = {}   # P4 keywords the grammar leaves out, with what to call them
_DECL_START = {"SEMICOLON", "RBRACE", "LBRACE", "ANNOTATION"}
# What may follow `typedef`/`type` in a declaration, before names are retyped.
_TYPEDEF_TARGET = {"BIT", "INT", "VARBIT", "BOOL", "ERROR", "STRING", "TUPLE", "MATCH_KIND", "IDENTIFIER"}

Scope = tuple[int, int, frozenset[str]]  # generic parameter names, type names in tokens[start:end]


def collect_type_decls(tokens: list[Token], known: Iterable[str] = ()) -> dict[str, int]:
    """Names that ``tokens`` declare as types, each with the index from which it is a type;
    ``known`` names are types from the start.

    Generic parameters are not included: see :func:`collect_type_params`.
    """
    decls = dict.fromkeys(known, -1)
    n = len(tokens)

    def add(name: str, at: int) -> None:
        if name not in decls:
            decls[name] = at

    for i, tok in enumerate(tokens):
        kind = tok.type
        if kind in _TYPE_DECL_KEYWORDS or kind == "ENUM":
            j = i + 1
            while j < n and tokens[j].type != "IDENTIFIER" and tokens[j].type != "LBRACE":
                j += 1
            if kind == "ENUM" and j + 1 < n and tokens[j + 1].type == "IDENTIFIER":
                j += 1      # `enum Base Name {`: a serializable enum over a typedef'd type
            if j < n and tokens[j].type == "IDENTIFIER":
                add(str(tokens[j]), j)
        elif kind == "EXTERN":
            # `extern Name {` or `extern Name<T> {` declares an object type; else it is a function.
            if i + 1 < n and tokens[i + 1].type == "IDENTIFIER":
                j = i + 2
                if j < n and tokens[j].type == "LESSTHAN":
                    j = _skip_angle(tokens, j)
                if j < n and tokens[j].type == "LBRACE":
                    add(str(tokens[i + 1]), i + 1)
        elif kind == "TYPEDEF" and i + 1 < n and tokens[i + 1].type in ("STRUCT", "HEADER", "HEADER_UNION", "ENUM"):
            # `typedef struct S { ... } T;`: T follows the body's closing brace
            j, depth = i + 1, 0
            while j < n and not (tokens[j].type == "RBRACE" and depth == 1):
                depth += {"LBRACE": 1, "RBRACE": -1}.get(tokens[j].type, 0)
                j += 1
            if j + 2 < n and tokens[j + 1].type == "IDENTIFIER" and tokens[j + 2].type == "SEMICOLON":
                add(str(tokens[j + 1]), j + 1)
        elif (kind in ("TYPEDEF", "TYPE") and (i == 0 or tokens[i - 1].type in _DECL_START)
              and i + 1 < n and tokens[i + 1].type in _TYPEDEF_TARGET):
            # `type` is also usable as a variable name: `type = x;` declares nothing.
            j = i + 1
            while j < n and tokens[j].type not in ("SEMICOLON", "EQUAL", "LBRACE", "RBRACE"):
                j += 1
            if j < n and tokens[j].type == "SEMICOLON" and tokens[j - 1].type == "IDENTIFIER":
                add(str(tokens[j - 1]), j - 1)
    return decls


def collect_type_names(tokens: list[Token], known: Iterable[str] = ()) -> set[str]:
    """Names that ``tokens`` declare as types anywhere, plus ``known``."""
    return set(collect_type_decls(tokens, known))


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


_OPEN = {"LPAR": "RPAR", "LBRACE": "RBRACE", "LSQB": "RSQB"}
_CLOSE = {v: k for k, v in _OPEN.items()}
# Tokens that can end a type, so that a name right after one is being declared.
_TYPE_END = {"IDENTIFIER", "MORETHAN", "RSQB", "BOOL", "BIT", "INT", "ERROR", "STRING", "VOID", "MATCH_KIND"}
# Tokens that can follow a declared name: `T x;`, `T x = 1;`, `(T x, ...)`, `T f(...)`.
_NAME_FOLLOW = {"SEMICOLON", "EQUAL", "COMMA", "RPAR", "LPAR"}
Shadow = tuple[int, int, str]   # a name that is not a type in tokens[start:end]


def _brackets(tokens: list[Token]) -> tuple[list[int], list[int]]:
    """For each token, the index of its matching bracket (-1 if none) and of the innermost open
    bracket around it (-1 at the top level). Unbalanced input is tolerated: the parser reports it."""
    n = len(tokens)
    match = [-1] * n
    parent = [-1] * n
    stack: list[int] = []
    for i, tok in enumerate(tokens):
        kind = tok.type
        if kind in _CLOSE:
            while stack and tokens[stack[-1]].type != _CLOSE[kind] and kind != "RBRACE":
                stack.pop()     # a stray bracket: forget it rather than mismatch everything after
            if kind == "RBRACE":
                while stack and tokens[stack[-1]].type != "LBRACE":
                    stack.pop()
            if stack:
                open_ = stack.pop()
                match[open_], match[i] = i, open_
        parent[i] = stack[-1] if stack else -1
        if kind in _OPEN:
            stack.append(i)
    return match, parent


def collect_shadows(tokens: list[Token], names: Mapping[str, int] | Iterable[str]) -> list[Shadow]:
    """Declarations of objects (parameters, variables, constants, instances, functions, actions,
    tables, states) whose name is one of ``names``, each with the token range it shadows.
    A mapping of names gives where each is declared as a type, which is no shadow."""
    type_at = set(names.values()) if isinstance(names, Mapping) else set()
    names = set(names)
    if not names:
        return []
    match, parent = _brackets(tokens)
    n = len(tokens)
    out: list[Shadow] = []
    for i in range(1, n):
        tok = tokens[i]
        if tok.type != "IDENTIFIER" or str(tok) not in names or i in type_at:
            continue
        prev = tokens[i - 1].type
        nxt = tokens[i + 1].type if i + 1 < n else ""
        declared = (prev in ("ACTION", "TABLE", "STATE")
                    or (prev in _TYPE_END and nxt in _NAME_FOLLOW
                        and not (i >= 2 and tokens[i - 2].type == "DOT"))
                    or (prev == "RPAR" and nxt == "SEMICOLON"))        # `Type(args) name;`
        if declared and not _in_type_body(tokens, parent[i]):
            out.append((i, _shadow_end(tokens, i, match, parent), str(tok)))
    return out


def _in_type_body(tokens: list[Token], b: int) -> bool:
    """True when the brace at ``b`` opens a header, struct or union body: its fields declare no
    objects (``t1 t1;`` is a field named like its type)."""
    if b < 0 or tokens[b].type != "LBRACE":
        return False
    k = b - 1
    while k >= 0 and tokens[k].type not in ("SEMICOLON", "LBRACE", "RBRACE", "RPAR"):
        if tokens[k].type in ("STRUCT", "HEADER", "HEADER_UNION"):
            return True
        k -= 1
    return False


def _shadow_end(tokens: list[Token], i: int, match: list[int], parent: list[int]) -> int:
    """Where the scope of a name declared at ``i`` ends: its block, or for a parameter the body
    after its list (past constructor parameters), or the list itself in a prototype."""
    n = len(tokens)
    b = parent[i]
    if b < 0:
        return n
    if tokens[b].type != "LPAR":
        return match[b] + 1 if match[b] >= 0 else n
    close = match[b]
    if close < 0:
        return n
    j = close + 1
    if j < n and tokens[j].type == "LPAR" and match[j] >= 0:
        j = match[j] + 1
    if j < n and tokens[j].type == "LBRACE":
        return match[j] + 1 if match[j] >= 0 else n
    if b > 0 and str(tokens[b - 1]) == "for":
        # `for (T i = ...; ...) statement`: the statement ends at its `;` or its block
        k = j
        while k < n and tokens[k].type not in ("SEMICOLON", "LBRACE"):
            k += 1
        if k < n and tokens[k].type == "LBRACE" and match[k] >= 0:
            return match[k] + 1
        return k + 1
    return close + 1


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


_DECLARING = {"IDENTIFIER", "MORETHAN", "VOID", "BOOL", "EXTERN", "PARSER", "CONTROL", "STRUCT", "HEADER",
              "HEADER_UNION", "PACKAGE", "BIT", "INT", "ERROR", "STRING", "RSQB"}


def _is_declaration_context(tokens: list[Token], name_index: int) -> bool:
    """True when the name at ``name_index`` is being declared (after a type or a declaring keyword)."""
    if name_index == 0:
        return False
    prev = tokens[name_index - 1]
    return prev.type in _DECLARING and tokens[name_index - 2].type != "DOT" if name_index >= 2 else True


def retype(tokens: list[Token], type_names: Mapping[str, int] | Iterable[str], scopes: Iterable[Scope] = (),
           shadows: Iterable[Shadow] = ()) -> Iterator[Token]:
    """Yield ``tokens`` with type names, type-argument brackets and right shifts retyped.

    ``type_names`` maps each type name to the index from which it is a type (a plain set of
    names makes them types everywhere); ``scopes`` adds generic parameter names that are types
    only within a token range; ``shadows`` are ranges where a name is no type.
    """
    n = len(tokens)
    if not isinstance(type_names, Mapping):
        type_names = dict.fromkeys(type_names, -1)
    scoped: set[int] = set()
    for start, end, params in scopes:
        scoped.update(k for k in range(start, min(end, n))
                      if tokens[k].type == "IDENTIFIER" and str(tokens[k]) in params)
    shadow_map: dict[str, list[tuple[int, int]]] = {}
    for start, end, name in shadows:
        shadow_map.setdefault(name, []).append((start, end))
    out: list[Token] = []
    for k, tok in enumerate(tokens):
        if tok.type == "IDENTIFIER":
            text = str(tok)
            if text in UNSUPPORTED_KEYWORDS:
                # Valid P4 the grammar leaves out: give the parser a token it will reject by name.
                tok = Token.new_borrow_pos("UNSUPPORTED", text, tok)
            elif text in shadow_map and any(s <= k < e for s, e in shadow_map[text]):
                pass
            elif (k in scoped or type_names.get(text, n) <= k
                  or (k + 1 < n and tokens[k + 1].type == "IDENTIFIER")):
                # Two adjacent names only occur as `Type name`: an undeclared first one is taken as
                # a type so that the checker can say "unknown type" instead of a bare syntax error.
                tok = Token.new_borrow_pos("TYPE_IDENTIFIER", text, tok)
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
    """lark ``postlex`` hook: collects declarations and scopes, then applies :func:`retype`."""

    always_accept = ()

    def __init__(self, known_types: Iterable[str] = ()):
        self.known_types = set(known_types)

    def process(self, stream: Iterable[Token]) -> Iterator[Token]:
        tokens = list(stream)
        decls = collect_type_decls(tokens, self.known_types)
        scopes = collect_type_params(tokens)
        names = dict(decls)
        for _, _, params in scopes:
            names.update((p, -1) for p in params if p not in names)
        yield from retype(tokens, decls, scopes, collect_shadows(tokens, names))
