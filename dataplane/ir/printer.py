"""The syntax tree printed back as P4_16 source (``dataplane compile --pp FILE``), as pycparser's
``c_generator`` prints C and p4c's ``ToP4`` prints P4.

What it prints is the parse tree (``ir.decl``/``stmt``/``expr`` nodes as the front end builds
them, before checking), not the checked ``ir.program.Program``: that one is lowered (header
layouts, parser graphs, sub-blocks inlined, constants folded), so printing it would not give
back the program that was written. The parse tree keeps every construct, so the printed text
compiles to the same tree (spans aside) and to the same checked program; ``tests/ir/
test_printer.py`` holds both for every ``.p4`` file in the repository. What the printed text
loses: comments, layout, the spelling of literals beyond their base (``0x0A`` is ``0xa``), and
redundant parentheses (every operator application is parenthesised instead, so precedence
never has to be re-derived). Declarations from the bundled include files (``core.p4``,
``v1model.p4`` ...) print as the ``#include`` that brought them.
"""
from __future__ import annotations

from typing import Iterable, cast

from dataplane.ir import decl as D
from dataplane.ir import stmt as S
from dataplane.ir.node import Annotation
from dataplane.ir.printer_expr import ExprPrinter

_INDENT = "    "


def to_p4(program: D.P4Program, system_files: Iterable[str] = ()) -> str:
    """P4_16 source for ``program``; declarations whose file is in ``system_files`` (names as
    ``#include <...>`` gives them) become one ``#include`` line per file."""
    return P4Printer(frozenset(system_files)).program(program)


class P4Printer(ExprPrinter):
    """``visit`` returns the text of an expression or type reference (``ExprPrinter``), and writes the lines of a
    statement or declaration (at the current indentation) into ``lines``."""

    def __init__(self, system_files: frozenset[str] = frozenset()):
        self.system_files = system_files
        self.lines: list[str] = []
        self.depth = 0

    def program(self, program: D.P4Program) -> str:
        included: set[str] = set()
        for d in program.decls:
            file = d.span.file
            if file in self.system_files:
                if file not in included:
                    included.add(file)
                    self.line(f"#include <{file}>")
                continue
            start = len(self.lines)
            self.visit(d)
            if len(self.lines) - start > 1:   # a blank line after a declaration with a body
                self.lines.append("")
        return "\n".join(self.lines) + "\n"

    # ---- output helpers ------------------------------------------------------------------------
    def line(self, text: str) -> None:
        self.lines.append(_INDENT * self.depth + text)

    def annotated(self, annotations: tuple, text: str) -> None:
        """``text`` on one line after its annotations."""
        self.line(annots(annotations) + text)

    def open(self, head: str, annotations: tuple = ()) -> None:
        self.annotated(annotations, head + " {")
        self.depth += 1

    def close(self, tail: str = "}") -> None:
        self.depth -= 1
        self.line(tail)

    # ---- statements -------------------------------------------------------------------------------
    def visit_BlockStmt(self, s: S.BlockStmt, head: str = "") -> None:
        self.annotated(s.annotations, (head + " {") if head else "{")
        self.depth += 1
        for x in s.stmts:
            self.visit(x)
        self.close()

    def body(self, head: str, s: S.Stmt, annotations: tuple = ()) -> None:
        """``head`` followed by a statement: a block opens on the head's line."""
        if isinstance(s, S.BlockStmt) and not s.annotations:
            self.annotated(annotations, head + " {")
            self.depth += 1
            for x in s.stmts:
                self.visit(x)
            self.close()
        else:
            self.annotated(annotations, head)
            self.depth += 1
            self.visit(s)
            self.depth -= 1

    def simple(self, s: S.Stmt) -> str:
        """A statement without its ';' (a ``for`` loop's initialisers and updates)."""
        if isinstance(s, S.Assign):
            return f"{self.visit(s.lhs)} {s.op}= {self.top(s.rhs)}"
        if isinstance(s, S.VarDecl):
            init = f" = {self.top(s.init)}" if s.init is not None else ""
            return f"{annots(s.annotations)}{self.visit(s.type_ref)} {s.name}{init}"
        if isinstance(s, S.CallStmt):
            return self.visit(s.call)
        raise ValueError(f"cannot print {type(s).__name__} in a for loop's header")

    def visit_Assign(self, s: S.Assign) -> None:
        self.line(self.simple(s) + ";")

    def visit_CallStmt(self, s: S.CallStmt) -> None:
        self.line(self.visit(s.call) + ";")

    def visit_If(self, s: S.If) -> None:
        self.body(f"if ({self.top(s.cond)})", s.then)
        if s.otherwise is not None:
            self.body("else", s.otherwise)

    def visit_Exit(self, s: S.Exit) -> None:
        self.line("exit;")

    def visit_Return(self, s: S.Return) -> None:
        self.line("return;" if s.value is None else f"return {self.top(s.value)};")

    def visit_Empty(self, s: S.Empty) -> None:
        self.line(";")

    def visit_Break(self, s: S.Break) -> None:
        self.line("break;")

    def visit_Continue(self, s: S.Continue) -> None:
        self.line("continue;")

    def visit_Switch(self, s: S.Switch) -> None:
        self.open(f"switch ({self.visit(s.expr)})")
        for case in s.cases:
            label = self.visit(case.label)
            if case.body is None:
                self.line(label + ":")
            else:
                self.visit_BlockStmt(case.body, label + ":")
        self.close()

    def visit_For(self, s: S.For) -> None:
        init = ", ".join(self.simple(x) for x in s.init)
        cond = self.top(s.cond) if s.cond is not None else ""
        updates = ", ".join(self.simple(x) for x in s.updates)
        self.body(f"for ({init}; {cond}; {updates})", s.body, s.annotations)

    def visit_ForIn(self, s: S.ForIn) -> None:
        var = f"{annots(s.var.annotations)}{self.visit(s.var.type_ref)} {s.var.name}"
        self.body(f"for ({var} in {self.visit(s.collection)})", s.body, s.annotations)

    def visit_VarDecl(self, s: S.VarDecl) -> None:
        self.line(self.simple(s) + ";")

    def visit_ConstDecl(self, s: S.ConstDecl) -> None:
        self.annotated(s.annotations, f"const {self.visit(s.type_ref)} {s.name} = {self.top(s.value)};")

    # ---- type declarations --------------------------------------------------------------------------
    def visit_StructTypeDecl(self, d: D.StructTypeDecl) -> None:
        self.open(f"{d.kind} {d.name}{type_params(d.type_params)}", d.annotations)
        for f in d.fields:
            self.annotated(f.annotations, f"{self.visit(f.type_ref)} {f.name};")
        self.close()

    def visit_EnumDecl(self, d: D.EnumDecl) -> None:
        if d.underlying is None:
            members = ", ".join(d.members)
        else:
            members = ", ".join(f"{m} = {self.visit(v)}" for m, v in zip(d.members, d.values))
        under = f"{self.visit(d.underlying)} " if d.underlying is not None else ""
        self.annotated(d.annotations, f"enum {under}{d.name} {{ {members} }}")

    def visit_TypedefDecl(self, d: D.TypedefDecl) -> None:
        self.annotated(d.annotations, f"{'type' if d.is_new else 'typedef'} {self.visit(d.type_ref)} {d.name};")

    def visit_ErrorDecl(self, d: D.ErrorDecl) -> None:
        self.line(f"error {{ {', '.join(d.members)} }}")

    def visit_MatchKindDecl(self, d: D.MatchKindDecl) -> None:
        self.line(f"match_kind {{ {', '.join(d.members)} }}")

    # ---- externs, functions, actions, instances -----------------------------------------------------
    def params(self, params: tuple) -> str:
        return "(" + ", ".join(self.param(p) for p in params) + ")"

    def param(self, p: D.ParamDecl) -> str:
        direction = p.direction + " " if p.direction else ""
        default = f" = {self.visit(p.default)}" if p.default is not None else ""
        return f"{annots(p.annotations)}{direction}{self.visit(p.type_ref)} {p.name}{default}"

    def prototype(self, m: D.MethodDecl) -> str:
        ret = f"{self.visit(m.ret)} " if m.ret is not None else ""
        return f"{'abstract ' if m.is_abstract else ''}{ret}{m.name}{type_params(m.type_params)}{self.params(m.params)};"

    def visit_MethodDecl(self, d: D.MethodDecl) -> None:   # a top-level extern function
        self.annotated(d.annotations, "extern " + self.prototype(d))

    def visit_ExternDecl(self, d: D.ExternDecl) -> None:
        self.open(f"extern {d.name}{type_params(d.type_params)}", d.annotations)
        for m in d.methods:
            self.annotated(m.annotations, self.prototype(m))
        self.close()

    def visit_FunctionDecl(self, d: D.FunctionDecl) -> None:
        self.visit_BlockStmt(d.body, annots(d.annotations) + f"{self.visit(d.ret)} {d.name}"
                             f"{type_params(d.type_params)}{self.params(d.params)}")

    def visit_ActionDecl(self, d: D.ActionDecl) -> None:
        self.visit_BlockStmt(d.body, annots(d.annotations) + f"action {d.name}{self.params(d.params)}")

    def visit_Instantiation(self, d: D.Instantiation) -> None:
        head = annots(d.annotations) + f"{self.visit(d.type_ref)}({self.args(d.args)}) {d.name}"
        if d.initializer is None:
            self.line(head + ";")
            return
        self.open(head + " =")
        for item in d.initializer:
            self.visit(item)
        self.close("};")

    def visit_ValueSetDecl(self, d: D.ValueSetDecl) -> None:
        self.annotated(d.annotations, f"value_set<{self.visit(d.type_ref)}>({self.visit(d.size)}) {d.name};")

    def visit_BlockTypeDecl(self, d: D.BlockTypeDecl) -> None:
        self.annotated(d.annotations, f"{d.kind} {d.name}{type_params(d.type_params)}{self.params(d.params)};")

    def block_head(self, kind: str, d: D.ParserDecl | D.ControlDecl) -> str:
        ctor = self.params(d.ctor_params) if d.ctor_params else ""
        return f"{kind} {d.name}{type_params(d.type_params)}{self.params(d.params)}{ctor}"

    # ---- parsers -----------------------------------------------------------------------------------
    def visit_ParserDecl(self, d: D.ParserDecl) -> None:
        self.open(self.block_head("parser", d), d.annotations)
        for item in d.locals:
            self.visit(item)
        for st in d.states:
            self.visit(st)
        self.close()

    def visit_StateDecl(self, st: D.StateDecl) -> None:
        self.open(f"state {st.name}", st.annotations)
        for s in st.stmts:
            self.visit(s)
        tr = st.transition
        if tr is not None and not tr.state:
            self.open(f"transition select({', '.join(self.visit(k) for k in tr.select)})")
            for case in tr.cases:
                self.line(f"{self.visit(case.keyset)}: {case.state};")
            self.close()
        elif tr is not None:
            self.line(f"transition {tr.state};")
        self.close()

    # ---- controls and tables --------------------------------------------------------------------------
    def visit_ControlDecl(self, d: D.ControlDecl) -> None:
        self.open(self.block_head("control", d), d.annotations)
        for item in d.locals:
            self.visit(item)
        self.visit_BlockStmt(d.body, "apply")
        self.close()

    def visit_TableDecl(self, d: D.TableDecl) -> None:
        self.open(f"table {d.name}", d.annotations)
        for p in d.properties:
            self.property(p)
        self.close()

    def property(self, p: D.TableProperty) -> None:
        head = annots(p.annotations) + ("const " if p.is_const else "") + p.name + " ="
        if p.name == "key":
            self.open(head)
            for k in cast(tuple, p.value):
                self.line(f"{self.visit(k.expr)} : {k.match_kind}{annots(k.annotations, ' ', '')};")
            self.close()
        elif p.name == "actions":
            self.open(head)
            for a in cast(tuple, p.value):
                self.line(f"{annots(a.annotations)}{self.action_ref(a)};")
            self.close()
        elif p.name == "entries":
            self.open(head)
            for e in cast(tuple, p.value):
                prio = f"priority = {self.visit(e.priority)} : " if e.priority is not None else ""
                self.line(f"{annots(e.annotations)}{'const ' if e.is_const else ''}{prio}"
                          f"{self.keyset(e.keys)} : {self.action_ref(e.action)};")
            self.close()
        elif p.name == "default_action" and isinstance(p.value, D.ActionRef):
            self.line(f"{head} {self.action_ref(p.value)};")
        else:
            self.line(f"{head} {self.visit(p.value)};")

    def action_ref(self, a: D.ActionRef) -> str:
        return f"{'.' if a.top else ''}{a.name}({self.args(a.args)})"


def annots(annotations: Iterable[Annotation], before: str = "", after: str = " ") -> str:
    """Annotations as written, on one line: ``@name``, ``@name(body)``, ``@name[body]``."""
    out = []
    for a in annotations:
        if a.structured:
            out.append(f"@{a.name}[{a.body}]")
        else:
            out.append(f"@{a.name}({a.body})" if a.body else f"@{a.name}")
    return (before + " ".join(out) + after) if out else ""


def type_params(names: tuple) -> str:
    return f"<{', '.join(names)}>" if names else ""


__all__ = ["P4Printer", "to_p4"]
