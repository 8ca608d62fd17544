"""``CompileResult``: what the front end hands back. Its own module, so that a program loaded
from the compile cache (``compile_cache``) needs neither the parser nor the checker imported."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from dataplane.errors import Diagnostic
from dataplane.ir.decl import P4Program
from dataplane.ir.program import Program

if TYPE_CHECKING:
    from dataplane.lang.preprocess import PreprocessedSource


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
        from dataplane.lang.frontend import printed_source

        return printed_source(self)

