"""The inlining pass: sub-parser and sub-control instances inlined into the top-level blocks
the package uses, as p4c's ``GeneralInliner`` does, so the engine sees one parser and one
control per slot.

``program`` runs the pass over a program (``inline_program``); ``flatten`` flattens one
top-level block (the locals each instance brings, how its parameters bind, a control's
``apply`` calls); ``parser`` inlines sub-parsers into the caller's state machine per call
site; ``rewrite`` is how an instance's code reads once inlined (names, parameters);
``support`` holds the helpers that need no inlining state (p4c's ``RemoveReturns`` and
``ResetHeaders``, aliasing of arguments, folding after substitution).
"""
