"""The type checker: the parsed program's names resolved, its types inferred and checked,
constants folded, lowered to the typed ``ir.program.Program``.

``checker`` holds ``Checker``, which walks the declarations in order; the rules it applies
are mixins by topic: ``types`` (written types, type declarations, implicit conversions),
``expr`` and ``access`` (expressions; members, indexing and slices), ``call`` and ``infer``
(calls and l-values; what a call cannot take or infer), ``compare`` (what ``==`` compares),
``stmt`` (statements), ``table``, ``entries`` and ``names`` (tables, their entries and
control-plane names), ``value_set``, ``blocks``, ``instances``, ``initializer`` and
``package`` (sub-blocks, instantiations, initializers, the package), ``decls``, ``params``,
``type_size``, ``parser_graph`` and ``target`` (rules p4c applies to declarations,
parameters, type sizes, parser graphs and targets). ``state`` declares the state they share.
"""
