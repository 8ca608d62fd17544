"""Tree-to-IR builders for statements and expressions (mixed into ``BuildIR``)."""
from __future__ import annotations

from lark import Token, v_args

from dataplane.errors import Span
from dataplane.ir import expr as E
from dataplane.ir import stmt as S
from dataplane.ir.types import Bits
from dataplane.lang.literals import LiteralTooLarge, parse_integer

_BIN_OPS = {"||", "&&", "==", "!=", "<", ">", "<=", ">=", "|", "^", "&", "<<", ">>", "+", "-",
            "|+|", "|-|", "++", "*", "/", "%"}


class BuildError(Exception):
    """Text the grammar accepts but the IR cannot hold (a syntax error found while building,
    or a literal past ``lang.limits``: ``code`` says which)."""

    def __init__(self, message: str, span: Span, code: str = "syntax"):
        super().__init__(message)
        self.span = span
        self.code = code


class _Annots(tuple):
    """Marks the result of the ``annotations`` rule among a rule's children."""


def split_annotations(children: list) -> tuple[tuple, list]:
    """Separate the annotations group(s) from a rule's other children."""
    annots: tuple = ()
    rest = []
    for c in children:
        if isinstance(c, _Annots):
            annots = annots + tuple(c)
        else:
            rest.append(c)
    return annots, rest


class BuildExprMixin:
    """Builders for statement and expression rules; needs ``_span`` and ``_tok_span`` from ``BuildIR``.

    They are plain methods called by lark's Transformer by rule name.
    """

    # ---- statements --------------------------------------------------------------------------------
    @v_args(meta=True)
    def block(self, meta, c):
        annots, rest = split_annotations(c)
        return S.BlockStmt(tuple(rest), annots, span=self._span(meta))

    @v_args(meta=True)
    def var_decl(self, meta, c):
        annots, rest = split_annotations(c)
        return S.VarDecl(rest[0], rest[1], rest[2] if len(rest) > 2 else None, annots, span=self._span(meta))

    @v_args(meta=True)
    def assignment(self, meta, c):
        return S.Assign(c[0], c[1], "", span=self._span(meta))

    @v_args(meta=True)
    def compound_assignment(self, meta, c):
        return S.Assign(c[0], c[2], str(c[1])[:-1], span=self._span(meta))

    @v_args(meta=True)
    def call_stmt(self, meta, c):
        return S.CallStmt(c[0], span=self._span(meta))

    @v_args(meta=True)
    def if_stmt(self, meta, c):
        return S.If(c[0], c[1], c[2] if len(c) > 2 else None, span=self._span(meta))

    @v_args(meta=True)
    def exit_stmt(self, meta, c):
        return S.Exit(span=self._span(meta))

    @v_args(meta=True)
    def return_stmt(self, meta, c):
        return S.Return(c[0] if c else None, span=self._span(meta))

    @v_args(meta=True)
    def empty_stmt(self, meta, c):
        return S.Empty(span=self._span(meta))

    @v_args(meta=True)
    def for_stmt(self, meta, c):
        annots, (init, cond, updates, body) = split_annotations(c)
        return S.For(init, cond, updates, body, annots, span=self._span(meta))

    def for_inits(self, c):
        return tuple(c)

    def for_cond(self, c):
        return c[0] if c else None

    def for_updates(self, c):
        return tuple(c)

    @v_args(meta=True)
    def for_in_stmt(self, meta, c):
        annots, (var, collection, body) = split_annotations(c)
        return S.ForIn(var, collection, body, annots, span=self._span(meta))

    @v_args(meta=True)
    def for_in_var(self, meta, c):
        annots, (type_ref, name) = split_annotations(c)
        return S.VarDecl(type_ref, name, None, annots, span=self._span(meta))

    @v_args(meta=True)
    def break_stmt(self, meta, c):
        return S.Break(span=self._span(meta))

    @v_args(meta=True)
    def continue_stmt(self, meta, c):
        return S.Continue(span=self._span(meta))

    @v_args(meta=True)
    def switch_stmt(self, meta, c):
        return S.Switch(c[0], tuple(c[1:]), span=self._span(meta))

    @v_args(meta=True)
    def switch_case(self, meta, c):
        return S.SwitchCase(c[0], c[1] if len(c) > 1 else None, span=self._span(meta))

    @v_args(meta=True)
    def default_label(self, meta, c):
        return E.DefaultKeyset(span=self._span(meta))

    # ---- expressions ----------------------------------------------------------------------------------
    @v_args(meta=True)
    def mux(self, meta, c):
        return E.Mux(c[0], c[1], c[2], span=self._span(meta))

    @v_args(meta=True)
    def binop(self, meta, c):
        op = str(c[1])
        assert op in _BIN_OPS, op
        return E.Binary(op, c[0], c[2], span=self._span(meta))

    @v_args(meta=True)
    def not_op(self, meta, c):
        return E.Unary("!", c[-1], span=self._span(meta))

    @v_args(meta=True)
    def compl_op(self, meta, c):
        return E.Unary("~", c[-1], span=self._span(meta))

    @v_args(meta=True)
    def neg_op(self, meta, c):
        return E.Unary("-", c[-1], span=self._span(meta))

    @v_args(meta=True)
    def pos_op(self, meta, c):
        return E.Unary("+", c[-1], span=self._span(meta))

    @v_args(meta=True)
    def cast(self, meta, c):
        return E.Cast(c[0], c[1], span=self._span(meta))

    @v_args(meta=True)
    def member(self, meta, c):
        return E.Member(c[0], c[1], span=self._span(meta))

    @v_args(meta=True)
    def index(self, meta, c):
        return E.Index(c[0], c[1], span=self._span(meta))

    @v_args(meta=True)
    def slice(self, meta, c):
        return E.Slice(c[0], c[1], c[2], span=self._span(meta))

    @v_args(meta=True)
    def plus_slice(self, meta, c):
        return E.PlusSlice(c[0], c[1], c[3], span=self._span(meta))

    @v_args(meta=True)
    def call(self, meta, c):
        type_args = c[1] if len(c) == 3 else ()
        return E.Call(c[0], type_args, c[-1], span=self._span(meta))

    @v_args(meta=True)
    def int_lit(self, meta, c):
        return self.int_lit_token(c[0])

    def int_lit_token(self, tok: Token) -> E.Constant:
        try:
            value, width, signed, base = parse_integer(str(tok))
        except LiteralTooLarge as exc:
            raise BuildError(str(exc), self._tok_span(tok), code="too-wide") from None
        t = Bits(width, signed) if width is not None else None
        return E.Constant(value, base, type=t, span=self._tok_span(tok))

    @v_args(meta=True)
    def true_lit(self, meta, c):
        return E.BoolLiteral(True, span=self._span(meta))

    @v_args(meta=True)
    def false_lit(self, meta, c):
        return E.BoolLiteral(False, span=self._span(meta))

    @v_args(meta=True)
    def string_lit(self, meta, c):
        return E.StringLiteral(str(c[0])[1:-1], span=self._span(meta))

    @v_args(meta=True)
    def path(self, meta, c):
        return E.PathExpr(c[0], span=self._span(meta))

    @v_args(meta=True)
    def this_expr(self, meta, c):
        return E.This(span=self._span(meta))

    @v_args(meta=True)
    def top_path(self, meta, c):
        return E.PathExpr(c[0], "top", span=self._span(meta))

    @v_args(meta=True)
    def type_member(self, meta, c):
        return E.TypeMember(c[0], c[1], span=self._span(meta))

    @v_args(meta=True)
    def error_member(self, meta, c):
        return E.TypeMember("error", c[-1], span=self._span(meta))

    @v_args(meta=True)
    def constructor_call(self, meta, c):
        return E.ConstructorCall(c[0], c[1], span=self._span(meta))

    @v_args(meta=True)
    def list_expr(self, meta, c):
        return E.ListExpr(tuple(c), span=self._span(meta))

    @v_args(meta=True)
    def struct_init(self, meta, c):
        fields = tuple(x for x in c if isinstance(x, E.NamedField))
        return E.StructInit(fields, len(fields) != len(c), span=self._span(meta))

    @v_args(meta=True)
    def struct_init_rest(self, meta, c):
        return E.StructInit((), True, span=self._span(meta))

    @v_args(meta=True)
    def kv_pair(self, meta, c):
        return E.NamedField(c[0], c[1], span=self._span(meta))

    @v_args(meta=True)
    def invalid_header(self, meta, c):
        return E.InvalidHeader(span=self._span(meta))

    @v_args(meta=True)
    def default_value(self, meta, c):
        return E.DefaultValue(span=self._span(meta))
