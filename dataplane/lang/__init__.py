"""The front end: P4_16 source to the checked program IR, with located diagnostics.

``frontend`` runs the passes in order (``PASSES``): ``preprocess/`` (directives, macros and
``#if`` expressions), ``parser`` (lark's LALR parser with ``postlex``; the IR built by ``build/``),
``checker`` (names, types, folding and lowering; split by topic over the ``check_*`` mixins,
state in ``check_state``, symbols in ``scope``, arithmetic in ``consteval`` and ``literals``),
``inline`` (sub-parsers and sub-controls, ``inline_*``; then ``cp_names``) and ``lint``
(p4c's warnings). ``limits`` holds the sizes it refuses.
"""
