"""The engine: checked IR to generated Python, and what that code runs on.

``backend`` generates one module per program and compiles it once (``codegen/`` writes it,
a module per job: blocks, parsers, statements, expressions, calls, field lists, header
layouts, loops, inlined externs); ``runtime`` and ``context`` are what generated code calls
and holds; ``tables``, ``match_structures`` and ``table_runtime`` are match tables with BMv2's
semantics (``table_errors`` its error codes); ``externs``, ``extern_functions``, ``psa_externs``,
``pna_externs`` and ``ebpf_externs`` the architectures' externs; ``hashes`` BMv2's hash and
checksum algorithms; ``trace`` a packet's path. ``batch/`` runs the same IR over numpy batches.
"""
