"""``CompileResult``: what the front end hands back. Its own module, so that a program loaded
from the compile cache (``compile_cache``) needs neither the parser nor the checker imported."""
from __future__ import annotations

from dataclasses import dataclass, field

from dataplane.errors import Diagnostic
from dataplane.ir.program import Program


@dataclass
class CompileResult:
    """The compiled program, its warnings and the time each pass took (seconds): ``preprocess``,
    ``lex``, ``tokens``, ``parse``, ``build``, ``check`` and ``total``."""

    program: Program
    warnings: list[Diagnostic] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
