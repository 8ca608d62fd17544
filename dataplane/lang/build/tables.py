"""IR builders for tables: properties, keys, action lists and entries; a mixin of ``BuildIR``."""
from __future__ import annotations

import dataclasses

from lark import Token, v_args

from dataplane.ir import decl as D
from dataplane.ir import expr as E
from dataplane.lang.build.expr import split_annotations as _split


class BuildTablesMixin:
    @v_args(meta=True)
    def table_decl(self, meta, c):
        annots, rest = _split(c)
        return D.TableDecl(rest[0], tuple(rest[1:]), annots, span=self._span(meta))

    @v_args(meta=True)
    def key_property(self, meta, c):
        annots, rest = _split(c)
        return D.TableProperty("key", tuple(rest), False, annots, span=self._span(meta))

    @v_args(meta=True)
    def actions_property(self, meta, c):
        annots, rest = _split(c)
        return D.TableProperty("actions", tuple(rest), False, annots, span=self._span(meta))

    def _const_split(self, rest):
        is_const = bool(rest) and isinstance(rest[0], Token) and rest[0].type == "CONST"
        return is_const, (rest[1:] if is_const else rest)

    @v_args(meta=True)
    def default_action_property(self, meta, c):
        annots, rest = _split(c)
        is_const, rest = self._const_split(rest)
        return D.TableProperty("default_action", rest[0], is_const, annots, span=self._span(meta))

    @v_args(meta=True)
    def entries_property(self, meta, c):
        annots, rest = _split(c)
        is_const, rest = self._const_split(rest)
        return D.TableProperty("entries", tuple(rest), is_const, annots, span=self._span(meta))

    @v_args(meta=True)
    def generic_property(self, meta, c):
        annots, rest = _split(c)
        is_const, rest = self._const_split(rest)
        return D.TableProperty(str(rest[0]), rest[1], is_const, annots, span=self._span(meta))

    @v_args(meta=True)
    def key_element(self, meta, c):
        annots, rest = _split(c)
        return D.KeyElement(rest[0], rest[1], annots, span=self._span(meta))

    @v_args(meta=True)
    def action_ref_item(self, meta, c):
        annots, rest = _split(c)
        return dataclasses.replace(rest[0], annotations=annots)

    @v_args(meta=True)
    def action_ref(self, meta, c):
        return D.ActionRef(c[0], c[1] if len(c) > 1 else (), (), span=self._span(meta))

    @v_args(meta=True)
    def top_action_ref(self, meta, c):
        return D.ActionRef(c[0], c[1] if len(c) > 1 else (), (), True, span=self._span(meta))

    @v_args(meta=True)
    def entry(self, meta, c):
        annots, rest = _split(c)
        is_const, rest = self._const_split(rest)
        priority = rest[0] if len(rest) == 3 else None
        keyset, action = rest[-2], rest[-1]
        keys = keyset.elements if isinstance(keyset, E.TupleKeyset) else (keyset,)
        return D.EntryDecl(keys, action, priority, annots, is_const, span=self._span(meta))

