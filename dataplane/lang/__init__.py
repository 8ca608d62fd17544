"""The front end: P4_16 source to the checked program IR, with located diagnostics.

``frontend`` runs the passes in order (``PASSES``): ``preprocess/`` (directives, macros and
``#if`` expressions), ``parser`` (lark's LALR parser with ``postlex``; the IR built by ``build/``),
``check/`` (names, types, folding and lowering: ``checker`` split by topic over its mixins,
state in ``check.state``; symbols in ``scope``, arithmetic in ``consteval`` and ``literals``),
``inline`` (sub-parsers and sub-controls, ``inline_*``; then ``cp_names``) and ``lint``
(p4c's warnings). ``limits`` holds the sizes it refuses.
"""
