"""Parse preprocessed P4 text into IR nodes with lark's LALR parser.

The parser is built once per process from ``grammar/p4.lark``. Syntax errors become
diagnostics at the original file, line and column; after an error the parser skips to
the next ``;`` or ``}`` and goes on, so several errors are reported together.
"""
from __future__ import annotations

import time
from functools import lru_cache
from itertools import islice
from typing import Callable, Iterator

from lark import Lark, Token, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.exceptions import VisitError
from lark.lexer import BasicLexer, LexerThread

from dataplane.errors import CompileError, Diagnostic, InternalError, Span
from dataplane.ir.decl import P4Program
from dataplane.lang.bounded import Deadline
from dataplane.lang.build.tree import BuildError, BuildIR
from dataplane.lang.limits import LimitExceeded
from dataplane.lang.postlex import UNSUPPORTED_KEYWORDS, P4PostLex
from dataplane.resources import data_dir

MAX_SYNTAX_ERRORS = 10
# LALR states on the parser's stack per level of nesting the checker allows
# (``CompileLimits.nesting``), and below the first: the deepest constructs take about 6 a level
# (``else if`` chains, nested ``if``s), this repository's programs 61 states in all. A stack
# past that bound is a program nested beyond the limit whatever it holds, so the parse stops
# there with the checker's error rather than read the rest first (20,000 nested ``if``s took
# 7 s to parse before the checker refused them).
STATES_PER_LEVEL = 16
BASE_STATES = 128

# What a user calls the tokens, for "expected ..." messages.
_TOKEN_NAMES = {
    "SEMICOLON": "';'", "LBRACE": "'{'", "RBRACE": "'}'", "LPAR": "'('", "RPAR": "')'", "LSQB": "'['",
    "RSQB": "']'", "COMMA": "','", "COLON": "':'", "DOT": "'.'", "EQUAL": "'='", "MORETHAN": "'>'",
    "LESSTHAN": "'<'", "L_ANGLE_ARGS": "'<'", "IDENTIFIER": "a name", "TYPE_IDENTIFIER": "a type name",
    "INTEGER": "an integer", "STRING_LITERAL": "a string", "QMARK": "'?'", "SHR": "'>>'",
}


@lru_cache(maxsize=1)
def _lark() -> Lark:
    grammar = (data_dir("grammar") / "p4.lark").read_text()
    return Lark(grammar, parser="lalr", lexer="basic", propagate_positions=True,
                maybe_placeholders=False, postlex=P4PostLex(), cache=True)


@lru_cache(maxsize=1)
def _lexer() -> BasicLexer:
    """lark's lexer for the grammar, without the token pass; built once, as it compiles its regexes
    on first use (``Lark.lex`` would build a new one for every call)."""
    return BasicLexer(_lark().lexer_conf)


def parse_text(text: str, locate: Callable[[int, int], Span], source_line: Callable[[Span], str | None],
               timings: dict[str, float] | None = None, deadline: Deadline | None = None,
               nesting: int | None = None) -> P4Program:
    """Parse ``text``; ``locate`` maps 1-based (line, col) of ``text`` to original spans.

    ``timings``, if given, receives the seconds spent in lark's lexer (``lex``), the token
    pass (``tokens``), the LALR parser (``parse``, which builds the IR as it reduces) and what
    is left of building the IR after it (``build``). ``deadline``, if given, is looked at
    every ``_CHUNK`` tokens (``LimitExceeded`` at the token it had reached), and so is the
    parser's depth when ``nesting`` (``CompileLimits.nesting``) is given: ``BASE_STATES`` and
    ``STATES_PER_LEVEL`` a level at most.
    """
    if timings is None:
        timings = {}
    if deadline is None:
        deadline = Deadline(None)
    diagnostics: list[Diagnostic] = []

    def report(err: UnexpectedInput) -> None:
        span = locate(getattr(err, "line", 0) or 0, getattr(err, "column", 0) or 0)
        diagnostics.append(Diagnostic(_describe(err), span, source_line=source_line(span), code="syntax"))

    def clock(tok: Token | None) -> None:
        if deadline.expired():
            deadline.check(locate(tok.line, tok.column) if tok is not None else Span("<input>", 0, 0))

    def depth(tok: Token, states: int) -> None:
        if nesting is not None and states > BASE_STATES + STATES_PER_LEVEL * nesting:
            raise LimitExceeded(f"statements, expressions and types nest more than {nesting} levels deep here "
                                "(the limit of the compiler, lang/limits.py)", locate(tok.line, tok.column))

    parser = _lark()
    t = time.perf_counter()
    try:
        raw = _chunked(LexerThread.from_text(_lexer(), text).lex(None), clock)
    except UnexpectedCharacters as err:
        report(err)
        raise CompileError(diagnostics) from None
    t = _lap(timings, "lex", t)
    tokens = _chunked(parser.options.postlex.process(raw), clock)
    del raw  # the parse lets go of each token once fed (see _feed): hold no other list of them
    t = _lap(timings, "tokens", t)
    builder = BuildIR(locate)
    reducer = _reducer(parser, builder)
    ip = reducer.interactive(parser, _lexer(), text) if reducer else parser.parse_interactive(text)
    tree = _feed(ip, tokens, report, lambda: len(diagnostics), clock, depth)
    t = _lap(timings, "parse", t)
    if diagnostics:
        raise CompileError(diagnostics)
    if reducer is not None:  # the IR was built during the parse
        if reducer.error is not None:
            _build_failed(*reducer.error, source_line)
        ir = reducer.result(tree)
    else:
        try:
            ir = builder.transform(tree)
        except VisitError as err:
            _build_failed(err.rule, err.orig_exc, source_line)
    _lap(timings, "build", t)
    return ir


def _build_failed(rule: str, exc: BaseException, source_line: Callable[[Span], str | None]) -> None:
    """Raise what a ``BuildIR`` failure means: a syntax error for a ``BuildError``, else a bug."""
    if isinstance(exc, BuildError):
        message = f"syntax error: {exc}" if exc.code == "syntax" else str(exc)
        raise CompileError([Diagnostic(message, exc.span, code="syntax" if exc.code == "syntax" else "too-wide",
                                       source_line=source_line(exc.span))]) from None
    # str(): under PyPy lark's rule names are Tokens, whose repr is not the plain name
    raise InternalError(f"building IR failed in rule '{str(rule)}': {exc!r}") from exc


def _reducer(parser: Lark, builder: BuildIR):
    """Callbacks that build the IR as the parser reduces (``build.reduce``), or None where this
    lark's internals differ from those it relies on: then the IR is built from a parse tree."""
    try:
        from dataplane.lang.build.reduce import IRBuilder
        return IRBuilder(parser, builder)
    except (ImportError, AttributeError):
        return None


def _lap(timings: dict[str, float], name: str, since: float) -> float:
    now = time.perf_counter()
    timings[name] = now - since
    return now


_CHUNK = 4096  # tokens between looks at the clock


def _chunked(tokens: Iterator[Token], clock: Callable[[Token | None], None]) -> list[Token]:
    """The list of ``tokens``, taken ``_CHUNK`` at a time with a look at the clock after each."""
    out: list[Token] = []
    while True:
        n = len(out)
        out.extend(islice(tokens, _CHUNK))
        if len(out) - n < _CHUNK:
            return out
        clock(out[-1])


def _feed(ip, tokens: list[Token], report, count: Callable[[], int], clock: Callable[[Token | None], None],
          depth: Callable[[Token, int], None]):
    """Drive the interactive LALR parser ``ip`` token by token, recovering in panic mode at ';' and '}'.

    Fed tokens are cleared from ``tokens`` (recovery only looks ahead), so that a big program's
    tokens are freed as its IR is built rather than all held to the end. ``clock`` and
    ``depth`` (with the states on the parser's stack) are called every ``_CHUNK`` tokens.
    """
    i = 0
    quiet_until = -1  # after a recovery, errors within the next few tokens are its echoes
    last_sync = -1
    last = tokens[-1] if tokens else None
    feed = ip.parser_state.feed_token  # what ip.feed_token calls for a token that is not $END
    while i < len(tokens):
        try:
            while i < len(tokens):
                end = min(i + _CHUNK, len(tokens))
                while i < end:
                    feed(tokens[i])
                    tokens[i] = None
                    i += 1
                if i < len(tokens):
                    clock(tokens[i])
                    depth(tokens[i], len(ip.parser_state.state_stack))
            continue
        except UnexpectedToken as err:
            if i >= quiet_until:
                report(err)
            if err.token.type == "UNSUPPORTED":
                # Drop the construct whole (`break;`, or `for (...) { ... }`); the parser is
                # still at the start of a statement, so nothing needs unwinding.
                i = _skip_construct(tokens, i)
                continue
        if count() >= MAX_SYNTAX_ERRORS:
            return None
        # Skip to the next statement end, then unwind the parser until that token fits.
        j = i
        while j < len(tokens) and tokens[j].type not in _SYNC:
            j += 1
        if j >= len(tokens):
            return None
        if j <= last_sync:
            return None  # the sync token failed right after recovering: give up rather than loop
        last_sync = j
        stack = ip.parser_state.state_stack
        while len(stack) > 1 and tokens[j].type not in ip.choices():
            stack.pop()
            ip.parser_state.value_stack.pop()
        if tokens[j].type not in ip.choices():
            return None
        i = j
        quiet_until = j + 2
    try:
        return ip.feed_eof(last)
    except UnexpectedToken as err:
        report(err)
        return None


_SYNC = ("SEMICOLON", "RBRACE")


def _skip_construct(tokens: list[Token], i: int) -> int:
    """Index just past the statement starting at ``i``: its ``;`` or its balanced ``{ ... }`` body."""
    depth = 0
    for k in range(i, len(tokens)):
        kind = tokens[k].type
        if kind == "LBRACE":
            depth += 1
        elif kind == "RBRACE":
            depth -= 1
            if depth <= 0:
                return k + 1
        elif kind == "SEMICOLON" and depth == 0 and tokens[i].type == "UNSUPPORTED":
            return k + 1
    return len(tokens)


def _describe(err: UnexpectedInput) -> str:
    if isinstance(err, UnexpectedCharacters):
        return f"syntax error: unexpected character {err.char!r}"
    if isinstance(err, UnexpectedEOF):
        return "unexpected end of file"
    if isinstance(err, UnexpectedToken):
        tok: Token = err.token
        if tok.type == "UNSUPPORTED":
            return f"unsupported: {UNSUPPORTED_KEYWORDS[str(tok)]}"
        if tok.type == "$END":
            got = "end of file"
        else:
            got = f"'{tok}'"
        if "SEMICOLON" in err.expected and tok.type != "SEMICOLON":
            return f"syntax error: unexpected {got}, expected ';'"
        expected = sorted({_TOKEN_NAMES.get(e, _keyword(e)) for e in err.expected if not e.startswith("__")})
        if expected and len(expected) <= 4:
            return f"syntax error: unexpected {got}, expected {' or '.join(expected)}"
        return f"syntax error: unexpected {got}"
    return str(err)


def _keyword(name: str) -> str:
    return f"'{name.lower()}'"


def parse_program(text: str, filename: str = "<input>") -> P4Program:
    """Parse unpreprocessed ``text`` directly (positions are the text's own)."""
    lines = text.splitlines()

    def locate(line: int, col: int) -> Span:
        return Span(filename, line, col)

    def source_line(span: Span) -> str | None:
        return lines[span.line - 1] if 0 < span.line <= len(lines) else None

    return parse_text(text, locate, source_line)
