"""Front-end pass: inline sub-parser and sub-control instances into the blocks the package uses.

BMv2 has no nested blocks: p4c's front end (``Inline``) copies every instance's locals into
the top-level parser or control that holds it and each ``apply`` call's body to the call
site, and the engine here runs the same flattened program. For an instance ``c1`` of
control ``C`` inside ``ingress``:

- its variables, extern instances, actions and tables become ``ingress``'s, named
  ``c1.x`` (internal names with a dot cannot clash with P4 names); their control-plane
  names are p4c's, ``ingress.c1.t``, kept as ``@name("c1.t")`` relative to the block
  (an instance's own ``@name`` replaces ``c1``; a name starting with ``.`` stays absolute);
- ``c1.apply(args)`` becomes a block statement: copy-in, the body, copy-out. As in p4c,
  when every call of the instance passes the same arguments and they do not overlap, the
  arguments themselves replace the parameters (no copy, so what the body writes before an
  ``exit`` stays written); otherwise each parameter is a temporary copied in (``in``,
  ``inout``) and back (``out``, ``inout``) at the end, which an ``exit`` skips. An ``out``
  parameter starts with its headers invalid; ``return`` ends only the inlined body;
  ``exit`` ends the whole top-level control;
- constructor parameters read as the instance's constructor arguments; a directionless
  apply parameter as its argument (a compile-time value);
- a direct invocation ``C.apply(...)`` is the anonymous instance the checker recorded,
  named after the type as p4c names it.

Sub-parsers are inlined per call site into the caller's state machine (``inline.parser``).
Blocks that only serve as sub-blocks are dropped from the program.
"""
from __future__ import annotations

import dataclasses

from dataplane.errors import DiagnosticSink
from dataplane.ir import program as P
from dataplane.lang.bounded import Deadline
from dataplane.lang.inline.flatten import CopyBudget, Flattener
from dataplane.lang.inline.parser import flatten_parser
from dataplane.lang.limits import DEFAULT_LIMITS, CompileLimits


def inline_program(program: P.Program, sink: DiagnosticSink, limits: CompileLimits = DEFAULT_LIMITS,
                   deadline: Deadline | None = None) -> P.Program:
    """``program`` with every sub-block instance inlined (the same object when there is none);
    ``limits.inline_nodes`` bounds what it copies, ``deadline`` is looked at per block."""
    blocks = list(program.parsers.values()) + list(program.controls.values())
    pkg = program.package
    args = {name: a for (_, name), a in zip(pkg.blocks, pkg.block_args)} if pkg is not None else {}
    if not any(b.subblocks for b in blocks) and not any(args.values()):
        return program
    used = {pkg_name for _, pkg_name in pkg.blocks} if pkg is not None else set()
    sub = {i.block for b in blocks for i in b.subblocks}
    roots = [b for b in blocks if b.name in used or b.name not in sub]
    out = dataclasses.replace(program, parsers={}, controls={})
    copies = CopyBudget(limits)
    for b in roots:
        if deadline is not None:
            deadline.check(b.span)
        fl = Flattener(program, sink, b, copies)
        if isinstance(b, P.Parser):
            out.parsers[b.name] = flatten_parser(fl, args.get(b.name, ()))
        else:
            out.controls[b.name] = fl.flatten_control(args.get(b.name, ()))
    return out
