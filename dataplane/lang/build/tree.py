"""Turn lark's parse tree into IR nodes (untyped); no ``lark.Tree`` leaves this module."""
from __future__ import annotations

import re
from typing import Any, Callable

from lark import Token, Transformer, v_args

from dataplane.errors import Span
from dataplane.ir import decl as D
from dataplane.ir import expr as E
from dataplane.ir import stmt as S
from dataplane.ir.node import Annotation
from dataplane.lang.build.expr import BuildError, BuildExprMixin, _Annots  # noqa: F401  (BuildError: parser's)
from dataplane.lang.build.expr import split_annotations as _split
from dataplane.lang.build.tables import BuildTablesMixin
from dataplane.lang.build.types import BuildTypesMixin

Locate = Callable[[int, int], Span]



class _Dir(str):
    """Marks the result of the ``direction`` rule."""


class BuildIR(BuildTypesMixin, BuildTablesMixin, BuildExprMixin, Transformer):
    """lark Transformer building IR nodes with spans mapped back to the original files."""

    def __init__(self, locate: Locate):
        super().__init__(visit_tokens=False)
        self.locate = locate

    def _span(self, meta: Any) -> Span:
        if getattr(meta, "empty", True):
            return Span("<unknown>", 0, 0)
        start = self.locate(meta.line, meta.column)
        end = self.locate(meta.end_line, meta.end_column)
        return Span(start.file, start.line, start.col, end.line if end.file == start.file else start.line, end.col)

    def _tok_span(self, tok: Token) -> Span:
        start = self.locate(tok.line, tok.column)
        return Span(start.file, start.line, start.col, start.line, start.col + len(str(tok)))

    # ---- program, annotations, names ---------------------------------------------------------
    @v_args(meta=True)
    def start(self, meta, children):
        decls = []
        for c in children:
            if isinstance(c, tuple):      # `typedef struct S {...} T;` declares two types
                decls.extend(c)
            elif c is not None:
                decls.append(c)
        return D.P4Program(tuple(decls), span=self._span(meta))

    def empty_decl(self, _children):
        return None

    def annotations(self, children):
        out = []
        for tok in children:
            text = str(tok)[1:]
            name, body = text, ""
            if text.startswith("pragma") and text[6:7] in (" ", "\t"):
                # `@pragma name body...` is `@name(body...)`
                name, _, body = text[7:].strip().partition(" ")
                body = body.strip()
                out.append(Annotation(name, body, span=self._tok_span(tok)))
                continue
            structured = False
            for i, ch in enumerate(text):
                if ch in "([":
                    name, body = text[:i].rstrip(), text[i + 1:-1]  # `@name ("x")` may have blanks
                    structured = ch == "["
                    break
            if "++" in body and (structured or name in _FOLDED):
                body = _CONCAT.sub(_join_strings, body)
            out.append(Annotation(name, body, structured, span=self._tok_span(tok)))
        return _Annots(out)

    def name(self, children):
        return str(children[0])  # a str already when it came through path_name

    def path_name(self, children):
        return str(children[0])

    def member_name(self, children):
        return str(children[0])

    def type_name(self, children):
        return str(children[0])

    # ---- type declarations ------------------------------------------------------------------------
    @v_args(meta=True)
    def field(self, meta, c):
        annots, (type_ref, name) = _split(c)
        return D.FieldDecl(type_ref, name, annots, span=self._span(meta))

    @v_args(meta=True)
    def array_field(self, meta, c):
        """``bit<8> arr[16];``: p4c's C-style spelling of ``bit<8>[16] arr;`` (array2.p4)."""
        annots, (type_ref, name, size) = _split(c)
        return D.FieldDecl(E.StackRef(type_ref, size, span=self._span(meta)), name, annots, span=self._span(meta))

    def _struct(self, kind, meta, c):
        annots, rest = _split(c)
        tparams = rest[1] if len(rest) > 1 and isinstance(rest[1], tuple) else ()
        fields = tuple(x for x in rest[1:] if isinstance(x, D.FieldDecl))
        return D.StructTypeDecl(kind, rest[0], fields, annots, tparams, span=self._span(meta))

    @v_args(meta=True)
    def header_decl(self, meta, c):
        return self._struct("header", meta, c)

    @v_args(meta=True)
    def struct_decl(self, meta, c):
        return self._struct("struct", meta, c)

    @v_args(meta=True)
    def union_decl(self, meta, c):
        return self._struct("header_union", meta, c)

    @v_args(meta=True)
    def enum_decl(self, meta, c):
        annots, rest = _split(c)
        return D.EnumDecl(rest[0], tuple(rest[1:]), None, (), annots, span=self._span(meta))

    @v_args(meta=True)
    def ser_enum_decl(self, meta, c):
        annots, rest = _split(c)
        members = rest[2:]
        return D.EnumDecl(rest[1], tuple(m[0] for m in members), rest[0], tuple(m[1] for m in members),
                          annots, span=self._span(meta))

    def enum_member(self, c):
        return (c[0], c[1])

    @v_args(meta=True)
    def typedef_decl(self, meta, c):
        annots, rest = _split(c)
        return D.TypedefDecl(rest[0], rest[1], False, annots, span=self._span(meta))

    @v_args(meta=True)
    def typedef_of_decl(self, meta, c):
        annots, (inner, name) = _split(c)
        ref = E.NamedTypeRef(inner.name, (), span=inner.span)
        return inner, D.TypedefDecl(ref, name, False, annots, span=self._span(meta))

    @v_args(meta=True)
    def newtype_decl(self, meta, c):
        annots, rest = _split(c)
        return D.TypedefDecl(rest[0], rest[1], True, annots, span=self._span(meta))

    @v_args(meta=True)
    def error_decl(self, meta, c):
        return D.ErrorDecl(tuple(c), span=self._span(meta))

    @v_args(meta=True)
    def match_kind_decl(self, meta, c):
        return D.MatchKindDecl(tuple(c), span=self._span(meta))

    @v_args(meta=True)
    def const_decl(self, meta, c):
        annots, rest = _split(c)
        return S.ConstDecl(rest[0], rest[1], rest[2], annots, span=self._span(meta))

    # ---- externs --------------------------------------------------------------------------------
    @v_args(meta=True)
    def extern_object(self, meta, c):
        annots, rest = _split(c)
        name = rest[0]
        targs = rest[1] if len(rest) > 1 and isinstance(rest[1], tuple) else ()
        if any(not isinstance(a, E.NamedTypeRef) or a.args for a in targs):
            raise BuildError("an extern's type parameters must be plain names", self._span(meta))
        methods = tuple(m for m in rest[1:] if isinstance(m, D.MethodDecl))
        return D.ExternDecl(name, tuple(a.name for a in targs), methods, annots, span=self._span(meta))

    @v_args(meta=True)
    def extern_function(self, meta, c):
        annots, rest = _split(c)
        return _with(rest[0], annotations=annots, span=self._span(meta))

    @v_args(meta=True)
    def method_proto(self, meta, c):
        annots, rest = _split(c)
        return _with(rest[0], annotations=annots, span=self._span(meta))

    @v_args(meta=True)
    def abstract_proto(self, meta, c):
        annots, rest = _split(c)
        return _with(rest[0], annotations=annots, is_abstract=True, span=self._span(meta))

    @v_args(meta=True)
    def constructor_proto(self, meta, c):
        annots, rest = _split(c)
        return D.MethodDecl(rest[0], None, (), rest[1], annots, span=self._span(meta))

    @v_args(meta=True)
    def function_proto(self, meta, c):
        ret, name = c[0], c[1]
        tparams = c[2] if len(c) == 4 else ()
        return D.MethodDecl(name, ret, tparams, c[-1], (), span=self._span(meta))

    # ---- parameters and arguments --------------------------------------------------------------------
    def params(self, c):
        return tuple(c)

    @v_args(meta=True)
    def param(self, meta, c):
        annots, rest = _split(c)
        direction, type_ref, name = rest[0], rest[1], rest[2]
        default = rest[3] if len(rest) > 3 else None
        return D.ParamDecl(str(direction), type_ref, name, default, annots, span=self._span(meta))

    def direction(self, c):
        return _Dir(str(c[0]) if c else "")

    def args(self, c):
        return tuple(c)

    @v_args(meta=True)
    def positional_arg(self, meta, c):
        return E.Argument(c[0], span=self._span(meta))

    @v_args(meta=True)
    def named_arg(self, meta, c):
        return E.Argument(c[1], c[0], span=self._span(meta))

    @v_args(meta=True)
    def named_dontcare_arg(self, meta, c):
        return E.Argument(E.DontCareExpr(span=self._span(meta)), c[0], span=self._span(meta))

    @v_args(meta=True)
    def dontcare_arg(self, meta, c):
        return E.Argument(E.DontCareExpr(span=self._span(meta)), span=self._span(meta))

    @v_args(meta=True)
    def instantiation(self, meta, c):
        annots, rest = _split(c)
        init = rest[3] if len(rest) > 3 else None
        return D.Instantiation(rest[0], rest[1], rest[2], annots, init, span=self._span(meta))

    def obj_initializer(self, c):
        return tuple(c)

    # ---- parsers ----------------------------------------------------------------------------------
    def _block_type(self, kind, meta, c):
        annots, rest = _split(c)
        name = rest[0]
        tparams = rest[1] if len(rest) == 3 else ()
        return D.BlockTypeDecl(kind, name, tparams, rest[-1], annots, span=self._span(meta))

    @v_args(meta=True)
    def parser_type_decl(self, meta, c):
        return self._block_type("parser", meta, c)

    @v_args(meta=True)
    def control_type_decl(self, meta, c):
        return self._block_type("control", meta, c)

    @v_args(meta=True)
    def package_decl(self, meta, c):
        return self._block_type("package", meta, c)

    def ctor_params(self, c):
        return ("ctor", c[0])

    def _block_head(self, rest):
        name = rest[0]
        i = 1
        tparams: tuple = ()
        if i < len(rest) and isinstance(rest[i], tuple) and all(isinstance(x, str) for x in rest[i]) and rest[i] and not isinstance(rest[i][0], D.ParamDecl):
            tparams = rest[i]
            i += 1
        params = rest[i]
        i += 1
        ctor: tuple = ()
        if i < len(rest) and isinstance(rest[i], tuple) and rest[i][:1] == ("ctor",):
            ctor = rest[i][1]
            i += 1
        return name, tparams, params, ctor, rest[i:]

    @v_args(meta=True)
    def parser_decl(self, meta, c):
        annots, rest = _split(c)
        name, tparams, params, ctor, body = self._block_head(rest)
        states = tuple(x for x in body if isinstance(x, D.StateDecl))
        local = tuple(x for x in body if not isinstance(x, D.StateDecl))
        return D.ParserDecl(name, tparams, params, ctor, local, states, annots, span=self._span(meta))

    @v_args(meta=True)
    def value_set_decl(self, meta, c):
        annots, rest = _split(c)
        type_ref, size, name = (x for x in rest if not isinstance(x, Token))
        return D.ValueSetDecl(type_ref, size, name, annots, span=self._span(meta))

    @v_args(meta=True)
    def parser_state(self, meta, c):
        annots, rest = _split(c)
        name = rest[0]
        trans = rest[-1] if rest and isinstance(rest[-1], D.Transition) else None
        stmts = tuple(x for x in rest[1:] if isinstance(x, S.Stmt))
        return D.StateDecl(name, stmts, trans, annots, span=self._span(meta))

    @v_args(meta=True)
    def parser_block(self, meta, c):
        annots, rest = _split(c)
        return S.BlockStmt(tuple(rest), annots, span=self._span(meta))

    @v_args(meta=True)
    def transition_direct(self, meta, c):
        return D.Transition(c[0], span=self._span(meta))

    @v_args(meta=True)
    def transition_select(self, meta, c):
        keys, cases = c[0]
        return D.Transition("", keys, cases, span=self._span(meta))

    def select_expr(self, c):
        keys = tuple(x for x in c if isinstance(x, E.Expr))
        cases = tuple(x for x in c if isinstance(x, D.SelectCase))
        return keys, cases

    @v_args(meta=True)
    def select_case(self, meta, c):
        return D.SelectCase(c[0], c[1], span=self._span(meta))

    @v_args(meta=True)
    def tuple_keyset(self, meta, c):
        return E.TupleKeyset(tuple(c), span=self._span(meta))

    @v_args(meta=True)
    def mask(self, meta, c):
        return E.Mask(c[0], c[1], span=self._span(meta))

    @v_args(meta=True)
    def range(self, meta, c):
        return E.Range(c[0], c[1], span=self._span(meta))

    @v_args(meta=True)
    def default_keyset(self, meta, c):
        return E.DefaultKeyset(span=self._span(meta))

    # ---- controls, actions, functions, tables ---------------------------------------------------
    @v_args(meta=True)
    def control_decl(self, meta, c):
        annots, rest = _split(c)
        name, tparams, params, ctor, body = self._block_head(rest)
        return D.ControlDecl(name, tparams, params, ctor, tuple(body[:-1]), body[-1], annots, span=self._span(meta))

    @v_args(meta=True)
    def action_decl(self, meta, c):
        annots, rest = _split(c)
        return D.ActionDecl(rest[0], rest[1], rest[2], annots, span=self._span(meta))

    @v_args(meta=True)
    def function_decl(self, meta, c):
        annots, rest = _split(c)
        tparams = rest[2] if len(rest) == 5 else ()
        return D.FunctionDecl(rest[1], rest[0], tparams, rest[-2], rest[-1], annots, span=self._span(meta))

    def __default__(self, data, children, meta):
        raise AssertionError(f"grammar rule {data!r} has no builder")


def _with(node, **changes):
    import dataclasses
    return dataclasses.replace(node, **changes)


# String literals joined by ``++`` in an annotation p4c parses as expressions (@name, @deprecated
# and structured ones) are one literal, as p4c folds them (spec-issue1297-string-cat.p4); in any
# other annotation p4c keeps the tokens as written.
_FOLDED = {"name", "deprecated"}
_LITERAL = r'"(?:[^"\\]|\\.)*"'
_CONCAT = re.compile(rf"{_LITERAL}(?:\s*\+\+\s*{_LITERAL})+", re.S)
_PART = re.compile(_LITERAL, re.S)


def _join_strings(m: re.Match) -> str:
    return '"' + "".join(lit[1:-1] for lit in _PART.findall(m.group(0))) + '"'
