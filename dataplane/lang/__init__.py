"""The front end: P4_16 source to the checked program IR, with located diagnostics.

``frontend`` runs the passes in order (``PASSES``), a folder or a module each:
``preprocess/`` (directives, macros and ``#if`` expressions), ``parser`` (lark's LALR parser
with ``postlex``; the IR built by ``build/``), ``check/`` (names, types, folding and
lowering: ``checker`` split by topic over its mixins, state in ``check.state``; symbols in
``scope``, arithmetic in ``consteval`` and ``literals``), ``inline/`` (sub-parsers and
sub-controls; then ``cp_names``) and ``lint`` (p4c's warnings). ``limits`` holds the sizes
it refuses and ``bounded`` runs the passes within them; ``compile_cache`` keeps compiled
programs on disk (``compile_result``: what a compile hands back).
"""
