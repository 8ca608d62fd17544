"""Warnings about programs that type-check: what p4c's front end warns about, where a syntactic
pass can tell for certain.

- ``unused``: an action, table or local variable that nothing refers to (p4c's
  ``UnusedDeclarations``); declarations in the bundled include files are not reported.
- ``shadow``: a local declaration whose name is already declared in an enclosing scope of
  the same block or at the top level (p4c's ``ResolveReferences::checkShadowing``).
- ``uninitialized-use``: a local scalar variable declared without a value and read before any
  statement writes it, in straight-line code only (p4c's ``SimplifyDefUse`` goes further; this
  pass stops tracking a variable at the first branch, loop, call or partial write that names it,
  so it never warns where a write might have happened).

A declaration annotated ``@noWarn("CODE")`` (as in p4c) gets no warning with that code.
Runs on the parse IR after a successful check, so every name resolves.
"""
from __future__ import annotations

from typing import Iterable

from dataplane.errors import DiagnosticSink
from dataplane.ir import decl as D
from dataplane.ir import expr as E
from dataplane.ir import stmt as S
from dataplane.ir.node import Node, children, walk
from dataplane.lang.bounded import Deadline


def lint_program(prog: D.P4Program, sink: DiagnosticSink, system_files: frozenset[str] = frozenset(),
                 deadline: Deadline | None = None) -> None:
    """Add the warnings of ``prog`` to ``sink``; nothing in ``system_files`` is reported;
    ``deadline`` is looked at per top-level declaration."""
    Lint(sink, system_files, deadline).program(prog)


class _Names:
    """The names each node refers to (paths: reads, writes, calls, ``t.apply()``; action
    references), computed once for the whole program, bottom-up, and kept per node, so asking
    for a statement list's names costs a union, not a walk. ``types`` collects the type names
    the program uses (instantiations, ``T.apply()``)."""

    def __init__(self, root: Node):
        self.of: dict[int, frozenset[str]] = {}
        self.types: set[str] = set()
        order: list[tuple[Node, list[Node]]] = []   # pre-order: children come after their parent
        stack = [root]
        while stack:
            n = stack.pop()
            kids = list(children(n))
            order.append((n, kids))
            stack.extend(kids)
        of, none = self.of, frozenset()
        named, typed = (E.PathExpr, D.ActionRef), (E.NamedTypeRef, E.TypeMember)
        for n, kids in reversed(order):
            sets = [s for s in (of[id(c)] for c in kids) if s]
            if isinstance(n, named):
                sets.append(frozenset((n.name,)))
            elif isinstance(n, typed):
                self.types.add(n.type_name if isinstance(n, E.TypeMember) else n.name)
            of[id(n)] = none if not sets else sets[0] if len(sets) == 1 else frozenset().union(*sets)

    def __call__(self, nodes: Iterable[Node | None]) -> set[str]:
        out: set[str] = set()
        for n in nodes:
            if n is not None:
                out |= self.of[id(n)]
        return out


def _silenced(decl, code: str) -> bool:
    return any(a.name == "noWarn" and a.body.strip().strip('"') == code for a in getattr(decl, "annotations", ()))


_SCALAR = (E.BitsRef, E.BaseTypeRef)


class Lint:
    """One pass over a program; ``scopes`` holds the names declared by the enclosing scopes."""

    def __init__(self, sink: DiagnosticSink, system_files: frozenset[str], deadline: Deadline | None = None):
        self.sink = sink
        self.system_files = system_files
        self.deadline = deadline or Deadline(None)
        self.scopes: list[set[str]] = []
        self.dead = False   # in a parser or control nothing instantiates: p4c drops it before def-use

    def warn(self, decl, code: str, message: str) -> None:
        if decl.span.file in self.system_files or _silenced(decl, code):
            return
        self.sink.warning(message, decl.span, code)

    # ---- scopes and shadowing --------------------------------------------------------------------
    def declare(self, decl, name: str, what: str) -> None:
        """Declare ``name`` in the innermost scope, warning if an enclosing scope has it already."""
        if any(name in scope for scope in self.scopes[:-1]):
            self.warn(decl, "shadow", f"{what} '{name}' shadows a declaration of an enclosing scope")
        self.scopes[-1].add(name)

    def enter(self, names: Iterable[str] = ()) -> None:
        self.scopes.append(set(names))

    def leave(self) -> None:
        self.scopes.pop()

    # ---- the program -----------------------------------------------------------------------------
    def program(self, prog: D.P4Program) -> None:
        self.names = _Names(prog)
        used = self.names(prog.decls)
        types_used = self.names.types            # parsers and controls instantiated, or applied directly
        self.enter()                 # the top level, in declaration order: a name is visible after it
        for d in prog.decls:
            self.deadline.check(d.span)
            if isinstance(d, D.ActionDecl):
                if d.name not in used:
                    self.warn(d, "unused", f"action '{d.name}' is unused")
                self.action(d, dead=d.name not in used)
            elif isinstance(d, (D.ControlDecl, D.ParserDecl)):
                self.dead = d.name not in types_used and d.name not in used   # instantiated or applied
                if self.dead:
                    self.warn(d, "unused", f"{'control' if isinstance(d, D.ControlDecl) else 'parser'} "
                                           f"'{d.name}' is unused")
                (self.control if isinstance(d, D.ControlDecl) else self.parser)(d)
                self.dead = False
            elif isinstance(d, D.FunctionDecl):
                self.dead = d.name not in used
                self.enter(p.name for p in d.params)
                self.block(d.body.stmts)
                self.leave()
                self.dead = False
            if isinstance(getattr(d, "name", None), str):
                self.scopes[0].add(d.name)
        self.leave()

    def control(self, d: D.ControlDecl) -> None:
        used = self.names((*d.locals, d.body))
        self.enter(p.name for p in (*d.params, *d.ctor_params))
        self.enter()
        for item in d.locals:
            self.local(item, used)
        self.block(d.body.stmts)
        self.leave()
        self.leave()

    def parser(self, d: D.ParserDecl) -> None:
        used = self.names((*d.locals, *d.states))
        self.enter(p.name for p in (*d.params, *d.ctor_params))
        self.enter()
        for item in d.locals:
            self.local(item, used)
        for st in d.states:
            self.block(st.stmts, (st.transition,) if st.transition is not None else ())
        self.leave()
        self.leave()

    def local(self, item, used: set[str]) -> None:
        """A declaration among a control's or parser's locals."""
        if isinstance(item, D.ActionDecl):
            self.declare(item, item.name, "action")
            if item.name not in used:
                self.warn(item, "unused", f"action '{item.name}' is unused")
            self.action(item, dead=self.dead or item.name not in used)
        elif isinstance(item, D.TableDecl):
            self.declare(item, item.name, "table")
            if item.name not in used:
                self.warn(item, "unused", f"table '{item.name}' is unused")
        elif isinstance(item, S.VarDecl):
            self.declare(item, item.name, "variable")
            if item.name not in used:
                self.warn(item, "unused", f"variable '{item.name}' is unused")
        elif isinstance(item, (S.ConstDecl, D.Instantiation, D.ValueSetDecl)):
            self.declare(item, item.name, "constant" if isinstance(item, S.ConstDecl) else "instance")

    def action(self, d: D.ActionDecl, dead: bool) -> None:
        """An action's parameters and body; ``dead`` if nothing can run it (p4c drops it unchecked)."""
        outer, self.dead = self.dead, dead
        self.enter()
        for p in d.params:
            self.declare(p, p.name, "parameter")
        self.block(d.body.stmts)
        self.leave()
        self.dead = outer

    # ---- statements --------------------------------------------------------------------------------
    def block(self, stmts: tuple[S.Stmt, ...], tail: tuple[Node, ...] = ()) -> None:
        """A statement list in its own scope: declarations, unused locals, uninitialized reads.
        ``tail`` is what runs after the statements (a parser state's transition)."""
        self.enter()
        after = [self.names(tail)]               # after[k]: the names of statements k+1... and the tail
        for s in reversed(stmts[1:]):
            after.append(after[-1] | self.names((s,)))
        after.reverse()
        for i, s in enumerate(stmts):
            if isinstance(s, (S.VarDecl, S.ConstDecl)):
                self.declare(s, s.name, "variable" if isinstance(s, S.VarDecl) else "constant")
                if isinstance(s, S.VarDecl):
                    rest = stmts[i + 1:]
                    if s.name not in after[i]:
                        self.warn(s, "unused", f"variable '{s.name}' is unused")
                    elif s.init is None and isinstance(s.type_ref, _SCALAR) and not self.dead:
                        self.uninitialized(s, rest, tail)
            else:
                self.nested(s)
        self.leave()

    def nested(self, s: S.Stmt) -> None:
        if isinstance(s, S.BlockStmt):
            self.block(s.stmts)
        elif isinstance(s, S.If):
            for branch in (s.then, s.otherwise):
                if branch is not None:
                    self.block(branch.stmts if isinstance(branch, S.BlockStmt) else (branch,))
        elif isinstance(s, S.Switch):
            for case in s.cases:
                if case.body is not None:
                    self.block(case.body.stmts)
        elif isinstance(s, S.For):
            self.enter()
            self.block((*s.init, *s.updates, s.body))
            self.leave()
        elif isinstance(s, S.ForIn):
            self.enter([s.var.name])
            self.block((s.body,))
            self.leave()

    def uninitialized(self, d: S.VarDecl, rest: tuple[S.Stmt, ...], tail: tuple[Node, ...]) -> None:
        """Warn if the straight-line code after ``d`` reads it before writing it."""
        name = d.name
        for s in rest:
            if name not in self.names((s,)):
                continue
            if isinstance(s, S.Assign):
                if _reads(s.rhs, name):
                    self._report(d, s.rhs)
                elif s.op and _is(s.lhs, name):
                    self._report(d, s.lhs)
                # a whole write initializes it; a slice, index or call may write part of it
                return
            if isinstance(s, S.VarDecl) and s.init is not None and _reads(s.init, name):
                self._report(d, s.init)
            elif isinstance(s, S.If) and _reads(s.cond, name):
                self._report(d, s.cond)
            return                               # a branch, loop or call may write it: stop here
        for t in tail:                           # a transition select reads its keys
            if isinstance(t, D.Transition) and any(_reads(k, name) for k in t.select):
                self._report(d, next(k for k in t.select if _reads(k, name)))

    def _report(self, d: S.VarDecl, read: E.Expr) -> None:
        at = next(x for x in walk(read) if _is(x, d.name))
        if d.span.file in self.system_files or _silenced(d, "uninitialized-use"):
            return
        self.sink.warning(f"'{d.name}' is read before anything is written to it (declared at line {d.span.line})",
                          at.span, "uninitialized-use")


def _is(e: E.Expr, name: str) -> bool:
    return isinstance(e, E.PathExpr) and e.name == name


def _reads(e: E.Expr, name: str) -> bool:
    """Whether evaluating ``e`` certainly reads variable ``name``: it names it and holds no call
    (a call may take it as an ``out`` argument and write it)."""
    nodes = list(walk(e))
    return any(_is(x, name) for x in nodes) and not any(isinstance(x, E.Call) for x in nodes)
