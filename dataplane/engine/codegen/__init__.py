"""Code generation: the checked IR of a program as the source of one Python module, which
``engine.backend`` assembles and compiles.

Modules by job: ``block`` (parsers, controls with their actions and tables, deparsers, as
functions inside ``build(_rt)``), ``parser`` (``packet_in`` calls, the state machine,
``select``), ``stmt`` and ``loops`` (statements; ``for``, ``break``, ``continue``), ``index``
(header stacks indexed at run time), ``expr`` (expressions with P4's fixed-width arithmetic
made explicit), ``values`` (how generated code holds P4 values), ``fieldlists`` (hash,
checksum, digest and clone field lists), ``calls`` (copy-in/copy-out calls, extern calls),
``inline`` (v1model checksum and hash calls written out as arithmetic), ``layout`` (headers as
``struct`` formats) and ``chunks`` (a big program's ``build`` split so that Python's compiler
stays linear).
"""
