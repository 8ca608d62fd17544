"""Build the IR while lark's LALR parser reduces, instead of from a parse tree afterwards.

lark's tree builder makes a ``Tree`` and a ``Meta`` for every rule, which ``BuildIR`` then
walks: for a program of several megabytes that is millions of objects, about half of the
parse time and most of the front end's memory. These callbacks hand each reduction's children
straight to the ``BuildIR`` method of the rule, with the positions lark's
``propagate_positions`` would have computed, so the IR is the same, spans included:

* a rule spans from the start of its first positioned child to the end of its last, the
  tokens it filters out (``;``, brackets) included;
* a child passed through a single-child rule (``?rule``) takes that rule's span as its
  *container* span, which is what its parent then counts (lark's ``container_*``); a child
  with no position of its own takes the rule's span outright.

Which children a rule keeps, inlines (``_rule``) or passes through is decided by lark's own
wrappers for the rule. An exception in a ``BuildIR`` method is kept and raised once the parse
is over, where lark's ``Transformer`` would have raised it: after the syntax errors, if any.
"""
from __future__ import annotations

from typing import Any, Callable

from lark import Lark, Token
from lark.lexer import LexerThread
from lark.parse_tree_builder import ExpandSingleChild, PropagatePositions
from lark.parsers.lalr_interactive_parser import InteractiveParser
from lark.parsers.lalr_parser import _Parser
from lark.visitors import _vargs_meta


class _Node:
    """A reduction's result on the parser's value stack: the built ``value`` and its positions.

    It is also the ``meta`` a ``BuildIR`` method receives (``empty``, ``line``, ``column``,
    ``end_line``, ``end_column``, as lark's ``Meta``); ``c_*`` are the container positions.
    """

    __slots__ = ("value", "children", "empty", "line", "column", "start_pos", "end_line", "end_column",
                 "end_pos", "c_line", "c_column", "c_start_pos", "c_end_line", "c_end_column", "c_end_pos", "redo")

    def __init__(self) -> None:
        self.value: Any = None
        self.children: list | None = None    # an inlined rule's children, for its parent to splice
        self.empty = True
        self.redo: tuple | None = None        # (method, values) of a value built while empty


class IRBuilder:
    """Callbacks for one parse: ``callbacks`` maps each grammar rule to the function lark calls."""

    def __init__(self, lark: Lark, builder: Any):
        self.builder = builder
        # Failures of BuildIR methods by node, in the order of the calls (a node built again keeps its place).
        self._errors: dict[_Node, tuple[str, BaseException]] = {}
        self._meta: _Node | None = None                        # the span of the rule being reduced
        self.callbacks = {rule: self._rule_callback(rule, chain) for rule, chain in lark._parse_tree_builder.rule_builders}

    def interactive(self, lark: Lark, lexer: Any, text: str) -> InteractiveParser:
        """An interactive LALR parser over ``text`` whose reductions build the IR."""
        return _Parser(lark.parser.parser._parse_table, self.callbacks).parse(
            LexerThread.from_text(lexer, text), "start", start_interactive=True)

    @property
    def error(self) -> tuple[str, BaseException] | None:
        """The rule and exception of the first failing ``BuildIR`` call, as lark's Transformer meets it."""
        return next(iter(self._errors.values()), None)

    def result(self, value: Any) -> Any:
        """The built value of what the parser returned (a ``_Node``)."""
        return value.value if type(value) is _Node else value

    # ---- one rule ---------------------------------------------------------------------------------
    def _rule_callback(self, rule, chain) -> Callable[[list], Any]:
        name = rule.alias or rule.options.template_source or rule.origin.name
        f = self._inline if rule.origin.name.startswith("_") else self._method(name)
        for wrapper in chain:  # lark's child filter and single-child expansion, innermost first
            if wrapper is not PropagatePositions:
                f = wrapper(f)
        return self._positioned(f, ExpandSingleChild in chain)

    def _positioned(self, node_builder: Callable[[list], Any], expand1: bool) -> Callable[[list], Any]:
        def reduce(children: list) -> Any:
            if expand1 and len(children) == 1:
                child = children[0]
                if type(child) is _Node and child.children is None:
                    # A rule result passed through a ?rule: it spans what it spanned (lark's
                    # PropagatePositions sets its container to its own container).
                    return child
            meta = _span(children)
            self._meta = meta
            res = node_builder(children)
            if type(res) is _Node and res is not meta and not meta.empty:
                self._contain(res, meta)  # passed through a single-child rule: this rule contains it
            return res
        return reduce

    def _inline(self, children: list) -> _Node:
        meta = self._meta
        meta.children = children
        return meta

    def _method(self, name: str) -> Callable[[list], _Node]:
        method = getattr(self.builder, name, None)
        if method is None:
            default = self.builder.__default__
            method = lambda meta, values: default(name, values, meta)  # noqa: E731
        else:
            wrapper = getattr(method, "visit_wrapper", None)
            if wrapper is _vargs_meta:
                method = method.base_func
            elif wrapper is None:
                plain = method
                method = lambda _meta, values: plain(values)  # noqa: E731
            else:
                general = method
                method = lambda meta, values: general.visit_wrapper(general, name, values, meta)  # noqa: E731

        def build(children: list) -> _Node:
            meta = self._meta
            values = [c.value if type(c) is _Node else c for c in children]
            self._call(name, method, meta, values)
            if meta.empty:
                meta.redo = (name, method, values)
            return meta
        return build

    def _call(self, name: str, method: Callable, meta: _Node, values: list) -> None:
        try:
            meta.value = method(meta, values)
        except Exception as exc:  # noqa: BLE001 - kept for after the parse, as lark's Transformer raises it
            self._errors[meta] = (name, exc)
        else:
            if self._errors:
                self._errors.pop(meta, None)   # built again, now without failing

    def _contain(self, node: _Node, outer: _Node) -> None:
        """``node`` passed through the rule spanning ``outer``: that rule is its container."""
        if node.empty:
            node.line, node.column, node.start_pos = outer.line, outer.column, outer.start_pos
            node.end_line, node.end_column, node.end_pos = outer.end_line, outer.end_column, outer.end_pos
            node.empty = False
            if node.redo is not None:  # its value was built without a position: build it again with one
                name, method, values = node.redo
                node.redo = None
                self._call(name, method, node, values)
        node.c_line, node.c_column, node.c_start_pos = outer.line, outer.column, outer.start_pos
        node.c_end_line, node.c_end_column, node.c_end_pos = outer.end_line, outer.end_column, outer.end_pos


def _span(children: list) -> _Node:
    """A fresh node spanning ``children`` as lark's PropagatePositions measures them."""
    meta = _Node()
    for first in children:
        if type(first) is _Node:
            if not first.empty:
                meta.line, meta.column, meta.start_pos = first.c_line, first.c_column, first.c_start_pos
                break
        elif isinstance(first, Token):
            meta.line, meta.column, meta.start_pos = first.line, first.column, first.start_pos
            break
    else:
        return meta  # nothing positioned: the node stays empty
    for last in reversed(children):
        if type(last) is _Node:
            if not last.empty:
                meta.end_line, meta.end_column, meta.end_pos = last.c_end_line, last.c_end_column, last.c_end_pos
                break
        elif isinstance(last, Token):
            meta.end_line, meta.end_column, meta.end_pos = last.end_line, last.end_column, last.end_pos
            break
    meta.c_line, meta.c_column, meta.c_start_pos = meta.line, meta.column, meta.start_pos
    meta.c_end_line, meta.c_end_column, meta.c_end_pos = meta.end_line, meta.end_column, meta.end_pos
    meta.empty = False
    return meta
