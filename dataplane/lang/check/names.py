"""Type checker: control-plane names of tables and table keys.

The control plane addresses tables and keys by name, so p4c refuses programs where a
name is missing or ambiguous (actions are checked after inlining, in ``cp_names``):

- two tables may not end up with the same name (p4c's P4Info writer): a table whose
  ``@name`` starts with ``.`` keeps it in every instance of its control;
- a key is named by its expression, which must then be a field, slice, mask, constant
  or ``isValid()`` (p4c's ``TableKeyNames``); anything else needs ``@name``.
"""
from __future__ import annotations

import re

from dataplane.ir import decl as D
from dataplane.ir import expr as E
from dataplane.ir import program as P
from dataplane.ir import types as T
from dataplane.ir.node import annotation

# @p4runtime_translation("uri", T): T is how the controller sees the type: string, bit<W> or a width.
_TRANSLATION = re.compile(r'^\s*"[^"]*"\s*,\s*(string|bit\s*<\s*[0-9][0-9a-fA-FxX_]*\s*>|[0-9][0-9a-fA-FxX_]*)\s*$')


def _name(annotations: tuple, default: str) -> str:
    named = annotation(annotations, "name")
    return named.string_value if named is not None else default


def nameable_key(e: E.Expr) -> bool:
    """Whether p4c can name a key after its expression as written (``TableKeyNames``)."""
    if isinstance(e, (E.PathExpr, E.Constant)):
        return True
    if isinstance(e, E.Member):
        return nameable_key(e.expr)
    if isinstance(e, E.Index):
        return nameable_key(e.expr) and nameable_key(e.index)
    if isinstance(e, E.Slice):
        return nameable_key(e.expr) and nameable_key(e.hi) and nameable_key(e.lo)
    if isinstance(e, E.Binary) and e.op == "&":
        return nameable_key(e.left) and nameable_key(e.right)
    if isinstance(e, E.Call):
        return (not e.args and isinstance(e.target, E.Member) and e.target.member == "isValid"
                and nameable_key(e.target.expr))
    return False


class NamesMixin:
    """Checks that every action, table and key has one control-plane name."""

    def check_translation_annotation(self, annotations: tuple) -> None:
        """``@p4runtime_translation`` takes a URI and the controller's type: string, bit<W> or W."""
        a = annotation(annotations, "p4runtime_translation")
        if a is not None and not _TRANSLATION.match(a.body):
            self.error(f"@p4runtime_translation({a.body.strip()}): expected a URI string and the controller's "
                       "type: string, bit<W> or an integer width", a.span, code="annotation")

    def check_key_name(self, k: D.KeyElement) -> None:
        """A key the control plane cannot name after its expression needs ``@name``."""
        if annotation(k.annotations, "name") is None and not nameable_key(k.expr):
            self.error("this key needs a @name annotation: the control plane names a key after its expression, "
                       "which must be a field, a slice, a mask (&), a constant or isValid()", k.expr.span,
                       code="annotation")

    def check_control_plane_names(self, prog: D.P4Program) -> None:
        """Duplicate table names in programs for an architecture with a control plane here."""
        if self.program.architecture in ("v1model", "pna", "psa"):
            self._check_table_names(prog)

    def _check_table_names(self, prog: D.P4Program) -> None:
        counts = self.instance_counts(prog)
        absolute: dict[str, list[tuple[P.Table, str]]] = {}
        for control in self.program.controls.values():
            local: dict[str, P.Table] = {}
            for table in control.tables.values():
                name = _name(table.annotations, table.name)
                if name.startswith("."):
                    absolute.setdefault(name, []).append((table, control.name))
                elif name in local:
                    self.error(f"tables '{local[name].name}' and '{table.name}' of control '{control.name}' have "
                               f"the same control-plane name '{name}'", table.span, code="control-plane-name")
                else:
                    local[name] = table
        for name, tables in absolute.items():
            if sum(counts.get(c, 0) for _, c in tables) <= 1:
                continue
            table, control = tables[-1]
            how = (f"control '{control}' is instantiated {counts[control]} times" if len(tables) == 1
                   else f"{len(tables)} tables have it")
            self.error(f"table '{table.name}' keeps the control-plane name '{name[1:]}' in every instance of its "
                       f"control, and {how}: the name would denote several tables", table.span,
                       code="control-plane-name")

    def instance_counts(self, prog: D.P4Program) -> dict[str, int]:
        """How many instances of each control the package's blocks create, sub-controls included."""
        inside: dict[str, list[str]] = {}
        for d in prog.decls:
            if isinstance(d, (D.ControlDecl, D.ParserDecl)):
                for item in d.locals:
                    if isinstance(item, D.Instantiation) and isinstance(item.type_ref, E.NamedTypeRef):
                        t = self.types.get(item.type_ref.name)
                        if isinstance(t, T.Block) and t.kind in ("control", "parser"):
                            inside.setdefault(d.name, []).append(t.name)
        counts: dict[str, int] = {}

        def add(block: str, depth: int) -> None:
            counts[block] = counts.get(block, 0) + 1
            if depth < 64:  # instantiation cannot recurse in P4; the bound only guards a broken program
                for sub in inside.get(block, ()):
                    add(sub, depth + 1)

        if self.program.package is not None:
            for _, block in self.program.package.blocks:
                add(block, 0)
        return counts
