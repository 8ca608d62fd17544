"""IR builders for type references (``bit<W>``, ``H[4]``, ``tuple<...>``, ``list<T>``, named types);
a mixin of ``BuildIR``, which supplies ``_span`` and ``int_lit_token``."""
from __future__ import annotations

from lark import Token, v_args

from dataplane.ir import expr as E


class BuildTypesMixin:
    @v_args(meta=True)
    def bool_type(self, meta, _c):
        return E.BaseTypeRef("bool", span=self._span(meta))

    @v_args(meta=True)
    def error_type(self, meta, _c):
        return E.BaseTypeRef("error", span=self._span(meta))

    @v_args(meta=True)
    def string_type(self, meta, _c):
        return E.BaseTypeRef("string", span=self._span(meta))

    @v_args(meta=True)
    def void_type(self, meta, _c):
        return E.BaseTypeRef("void", span=self._span(meta))

    @v_args(meta=True)
    def match_kind_type(self, meta, _c):
        return E.BaseTypeRef("match_kind", span=self._span(meta))

    @v_args(meta=True)
    def int_type(self, meta, _c):
        return E.BaseTypeRef("int", span=self._span(meta))

    @v_args(meta=True)
    def dontcare_type(self, meta, _c):
        return E.BaseTypeRef("_", span=self._span(meta))

    @v_args(meta=True)
    def bit_type_1(self, meta, _c):
        return E.BitsRef(E.Constant(1), False, span=self._span(meta))

    @v_args(meta=True)
    def bit_type(self, meta, c):
        return E.BitsRef(self._width(c), False, span=self._span(meta))

    @v_args(meta=True)
    def signed_type(self, meta, c):
        return E.BitsRef(self._width(c), True, span=self._span(meta))

    @v_args(meta=True)
    def varbit_type(self, meta, c):
        return E.VarbitRef(self._width(c), span=self._span(meta))

    def _width(self, c):
        return next(x for x in c if isinstance(x, E.Expr))

    @v_args(meta=True)
    def width(self, meta, c):
        item = c[0]
        if isinstance(item, Token):
            return self.int_lit_token(item)
        return item

    @v_args(meta=True)
    def named_type(self, meta, c):
        args = c[1] if len(c) > 1 else ()
        return E.NamedTypeRef(c[0], tuple(args), span=self._span(meta))

    def type_args(self, c):
        return tuple(x for x in c if not isinstance(x, Token))

    def type_params(self, c):
        return tuple(x for x in c if not isinstance(x, Token))

    @v_args(meta=True)
    def stack_type(self, meta, c):
        return E.StackRef(c[0], c[1], span=self._span(meta))

    @v_args(meta=True)
    def list_type(self, meta, c):
        return E.ListRef(next(x for x in c if not isinstance(x, Token)), span=self._span(meta))

    @v_args(meta=True)
    def tuple_type(self, meta, c):
        return E.TupleRef(tuple(x for x in c if not isinstance(x, Token)), span=self._span(meta))

