"""The catalogue of diagnostic codes: every error and warning the front end reports has one.

A code is a short, stable, lower-case name (after p4c's ``ErrorCatalog``: ``type-error``,
``duplicate``, ``unused``); it is printed with the message, ``file:line:col: error [code]: ...``,
so users can search for it, and names a warning to silence (``--Wno CODE``) or to keep as a
warning under ``--Werror``. Codes are part of the interface: rename one only with a note in
docs/reference/diagnostics.md. ``tests/test_diagnostics.py`` checks that every code here is
used and that every error the front end raises carries a code from here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from dataplane.errors import Diagnostic

# code -> what it means, one line each. Errors first, by the pass that reports them.
ERRORS: dict[str, str] = {
    # reading and preprocessing
    "io": "a source or include file cannot be read",
    "encoding": "a source file is not UTF-8 text",
    "unterminated-comment": "a /* comment is never closed",
    "pp-directive": "a malformed, misplaced or unknown preprocessor directive (#if/#else/#endif/#undef/#line)",
    "pp-macro": "a malformed #define or a macro call that cannot be expanded",
    "pp-expression": "an #if or #elif expression that cannot be evaluated",
    "pp-include": "an #include that is malformed, not found, unreadable or nested too deeply",
    "pp-error": "the program's own #error directive",
    "limit": "a program past what one compile may use: its size, macro expansion, nesting depth or time",
    # parsing
    "syntax": "the text does not parse as P4_16",
    # names and declarations
    "unknown-name": "a name that is not declared (or not visible) where it is used",
    "unknown-type": "a type name that is not declared before its use",
    "unknown-member": "a field, member, method, error or match_kind that does not exist",
    "unknown-state": "a transition to a parser state that is not declared",
    "duplicate": "a name, field, member, label, parameter or property declared or given twice",
    "reserved": "a reserved name ('main') used for something else",
    "recursion": "a function, parser or control that refers to itself (P4 has no recursion)",
    "invalid-declaration": "a declaration that breaks a rule of its kind (parameter order, defaults, constructors)",
    "annotation": "an annotation with a malformed or misplaced body (@name, @match, @priority, ...)",
    # types and expressions
    "type-mismatch": "a value of one type where another is expected (P4 never converts implicitly)",
    "width-mismatch": "operands of the same signedness but different widths",
    "invalid-type": "a type that is not allowed in this position (header fields, tuples, parameters, ...)",
    "operand-type": "an operator applied to operands it is not defined on",
    "invalid-cast": "a cast between types that cannot be converted",
    "not-constant": "a value that must be known at compile time is not",
    "out-of-range": "an index, slice, width, size or count outside its allowed range",
    "too-wide": "a width beyond what the emulator represents",
    "division-by-zero": "a compile-time division or remainder by zero",
    "type-inference": "a type (argument, width, header type) that cannot be inferred; give it explicitly",
    "arity": "the wrong number of arguments, type arguments, fields or values",
    "ambiguous": "a call that matches several overloads equally",
    "not-callable": "a call of something that is not a function, action or method",
    "not-writable": "an assignment or out argument whose target cannot be written",
    # statements and blocks
    "invalid-context": "a statement, call or declaration in a place it is not allowed (exit in a parser, ...)",
    "no-effect": "a statement that does nothing (only calls may stand alone)",
    "missing-return": "a function that does not return a value on every path",
    "switch-label": "a switch label that is not allowed (not an action of the table, 'default' not last)",
    "static-assert": "a static_assert that fails or is not constant",
    "parser-graph": "a parser without a 'start' state or that never reaches accept or reject",
    "instantiation": "an instantiation that is not allowed (where, of what, with what)",
    "abstract-method": "an instance initializer that does not implement the extern's abstract methods",
    "sub-block": "a sub-parser or sub-control instance applied with different constructor-time values",
    # tables
    "table": "a table declaration that breaks a rule (properties, actions, keys, default action)",
    "table-entry": "a const entry of a table that breaks a rule (keys, action, priority)",
    "keyset": "a select case or entry keyset that does not fit its keys (count, mask, range, wildcard)",
    # the package and the target
    "package": "a package instantiated with arguments that do not fit its parameters",
    "control-plane-name": "two objects with the same control-plane name",
    "target": "a construct p4c's back ends (BMv2, eBPF) refuse, in a part of the program that is used",
    "unsupported": "valid P4 the emulator does not implement",
}

WARNINGS: dict[str, str] = {
    "no-main": "the program has no 'main' package instance: it can be checked but not run",
    "unused": "an action, table, local variable, parser or control that nothing uses",
    "shadow": "a local declaration that hides a declaration of an enclosing scope",
    "uninitialized-use": "a local variable read before anything is written to it",
}

CODES: dict[str, str] = {**ERRORS, **WARNINGS}


def is_code(code: str) -> bool:
    """Whether ``code`` is in the catalogue."""
    return code in CODES


def catalogue_table() -> str:
    """The catalogue as a Markdown table (code, kind, meaning), as docs/reference/diagnostics.md shows it."""
    rows = ["| code | kind | meaning |", "|---|---|---|"]
    rows += [f"| `{c}` | error | {m} |" for c, m in ERRORS.items()]
    rows += [f"| `{c}` | warning | {m} |" for c, m in WARNINGS.items()]
    return "\n".join(rows)


@dataclass(frozen=True)
class WarningPolicy:
    """What to do with warnings: leave out the codes in ``disabled`` (``--Wno CODE``) and, with
    ``as_errors`` (``--Werror``), fail the compile on any warning left."""

    disabled: frozenset[str] = frozenset()
    as_errors: bool = False

    def __post_init__(self) -> None:
        unknown = sorted(c for c in self.disabled if c not in WARNINGS)
        if unknown:
            raise ValueError(f"unknown warning code(s) {', '.join(unknown)}; the codes are {', '.join(WARNINGS)}")

    def kept(self, warnings: Iterable[Diagnostic]) -> list[Diagnostic]:
        """The warnings that are not disabled."""
        return [w for w in warnings if w.code not in self.disabled]

    def as_error(self, warning: Diagnostic) -> Diagnostic:
        """A warning promoted by ``--Werror``: same code, span and message, severity error."""
        return Diagnostic(warning.message, warning.span, "error", warning.code, warning.source_line)
