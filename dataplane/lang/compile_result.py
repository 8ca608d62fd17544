"""``CompileResult``: what the front end hands back. Its own module, so that a program loaded
from the compile cache (``compile_cache``) needs neither the parser nor the checker imported."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping

from dataplane.errors import Diagnostic
from dataplane.ir.program import Program
from dataplane.lang.bounded import deep_call
from dataplane.lang.limits import DEFAULT_LIMITS

if TYPE_CHECKING:   # the parse tree's classes: a program from the cache has no parse tree (14 ms of imports)
    from dataplane.ir.decl import P4Program
    from dataplane.lang.preprocess.directives import PreprocessedSource


@dataclass
class CompileResult:
    """The compiled program, its warnings and the time each pass took (seconds): ``preprocess``,
    ``lex``, ``tokens``, ``parse``, ``build`` (the parse pass's parts), ``check``, ``inline``,
    ``lint`` and ``total``. ``program`` is None only when ``stop_after`` stopped before ``check``.
    ``syntax`` is the parse tree (``dataplane.ir.printer`` prints it) and
    ``source`` the preprocessed text with its line map."""

    program: Program
    warnings: list[Diagnostic] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    syntax: P4Program | None = None
    source: PreprocessedSource | None = None

    def to_p4(self) -> str:
        """The program printed back as P4 from its parse tree (``dataplane compile --pp``)."""
        return printed_source(self)


def printed_source(result: CompileResult, defines: Mapping[str, str] | None = None) -> str:
    """The program's parse tree printed back as P4 (``dataplane compile --pp``). Declarations from
    the bundled include files print as their ``#include``, unless a macro defined before an
    include (``-D``, or ``#define V1MODEL_VERSION`` ahead of ``#include <v1model.p4>``) may have
    changed what it declares: then they print in full, as the program saw them."""
    from dataplane.ir.printer import to_p4

    pre = result.source
    if pre is None or result.syntax is None:
        raise ValueError("printed_source needs a CompileResult from compile_file or compile_source")
    system = pre.system_files
    user_texts = [text for name, text in pre.files.items() if name not in system]
    if defines or any(_defines_before_include(text) for text in user_texts):
        system = frozenset()
    # The printer recurses as deep as the tree nests, which the front end let go to its limit.
    syntax = result.syntax
    return deep_call(lambda: to_p4(syntax, system), DEFAULT_LIMITS.nesting)


_DEFINE = re.compile(r"^[ \t]*#[ \t]*define\b", re.M)
_SYSTEM_INCLUDE = re.compile(r"^[ \t]*#[ \t]*include[ \t]*<", re.M)


def _defines_before_include(text: str) -> bool:
    define = _DEFINE.search(text)
    return define is not None and any(m.start() > define.start() for m in _SYSTEM_INCLUDE.finditer(text))
