"""The typed program representation that every backend consumes.

``types`` holds P4 types, ``expr``/``stmt``/``decl`` the syntax nodes (the front
end builds them untyped; the type checker returns them with types filled in), and
``program`` the lowered whole-program view: header layouts with bit offsets,
parser state graphs, controls, tables, extern instances and the package.
"""
