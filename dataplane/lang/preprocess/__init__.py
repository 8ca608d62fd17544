"""The preprocessor, the front end's first pass: P4 text as cpp would hand it to the parser.

``directives`` runs a translation unit (``#include`` with its search path and the sandbox of
bundled includes, ``#define``/``#undef``, ``#if``/``#ifdef``/``#elif``/``#else``, ``#line``,
comments removed) and keeps the map from each output line to its file and line
(``PreprocessedSource``, in ``source``, with ``locate`` from output line and column to the
file's); ``lines`` splices continuations and blanks comments; ``macros`` defines and expands object-like and function-like
macros by C's rules; ``expr`` lexes and evaluates ``#if`` expressions; ``source_budget``
reads source text within ``CompileLimits.source_bytes``.
"""
