"""Annotations and documentation as p4c copies them into P4Info messages.

p4c prints each annotation back as P4 (its ToP4 pass): an annotation it parses into
expressions (``@noWarn("unused")``, ``@name``, ...) as the expressions joined by ``, ``,
any other as its tokens joined by single spaces. ``@name``, ``@id``, ``@brief`` and
``@description`` never appear (they are represented elsewhere); structured annotations
(``@x[...]``) go to ``structured_annotations``.
"""
from __future__ import annotations

import ast
import re
from typing import Callable, Iterable

from dataplane.control.p4info.ids import P4InfoError
from dataplane.ir.node import Annotation, annotation
from dataplane.lang.literals import parse_integer

# Annotations p4c's ParseAnnotations / ParseP4RuntimeAnnotations turn into expressions.
_PARSED = {"name", "deprecated", "noWarn", "length", "synchronous", "field_list", "match",
           "controller_header", "id", "brief", "description", "max_group_size",
           "selector_size_semantics", "max_member_weight", "p4runtime_translation", "command_line",
           "atomic", "defaultonly", "hidden", "likely", "noSideEffects", "optional", "pure",
           "tableonly", "unlikely", "disable_optimization", "unroll", "nounroll"}
_SKIPPED = {"name", "id", "brief", "description"}

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[A-Za-z_][A-Za-z0-9_]*|\d+[wsWS]\d+\w*|0[xXbBoOdD][0-9a-fA-F_]+|\d+'
                    r'|&&&|\.\.|<<|>>|==|!=|<=|>=|&&|\|\||\+\+|\S')


def split_top_level(body: str) -> list[str]:
    """``body`` split at commas outside brackets and string literals, each part stripped."""
    parts, depth, cur, i = [], 0, [], 0
    while i < len(body):
        ch = body[i]
        if ch == '"':
            j = i + 1
            while j < len(body) and body[j] != '"':
                j += 2 if body[j] == "\\" else 1
            cur.append(body[i:j + 1])
            i = j + 1
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
        i += 1
    last = "".join(cur).strip()
    if last or parts:
        parts.append(last)
    return parts


def format_annotation(a: Annotation) -> str:
    """``a`` as p4c prints it into a P4Info ``annotations`` string."""
    body = a.body.strip()
    if not body:
        return "@" + a.name
    if a.name in _PARSED:
        text = ", ".join(split_top_level(body))
    else:
        text = " ".join(_TOKEN.findall(body))
    return f"@{a.name}({text})"


def add_annotations(message, annotations: Iterable[Annotation],
                    skip: Callable[[str], bool] = lambda name: False) -> None:
    """Append ``annotations`` to ``message.annotations`` / ``structured_annotations`` as p4c does."""
    for a in annotations:
        if a.structured:
            _add_structured(message.structured_annotations.add(), a)
            continue
        if a.name in _SKIPPED or skip(a.name):
            continue
        message.annotations.append(format_annotation(a))


def add_documentation(message, annotations: Iterable[Annotation]) -> None:
    """Set ``message.doc`` from ``@brief`` / ``@description`` when either is present."""
    for a in annotations:
        if a.name == "brief":
            message.doc.brief = unquote(a.body)
        elif a.name == "description":
            message.doc.description = unquote(a.body)


def set_preamble(preamble, id_: int, name: str, alias: str, annotations: Iterable[Annotation] = (),
                 skip: Callable[[str], bool] = lambda name: False) -> None:
    """Fill a ``Preamble``: id, name, alias, annotations and documentation."""
    annotations = tuple(annotations)
    preamble.id = id_
    preamble.name = name
    preamble.alias = alias
    add_annotations(preamble, annotations, skip)
    add_documentation(preamble, annotations)


def unquote(text: str) -> str:
    """A string literal's contents with its escapes resolved (``\\"`` to ``"``)."""
    t = text.strip()
    if len(t) >= 2 and t[0] == t[-1] == '"':
        t = t[1:-1]
        return re.sub(r'\\(.)', r'\1', t)
    return t


def int_value(a: Annotation, what: str) -> int:
    """The integer argument of ``@a(N)``: an integer literal as P4 writes it, width-prefixed
    (``32w16``) or not, as p4c's P4Runtime annotation parser reads these (a Constant)."""
    body = a.body.strip()
    try:
        if body.startswith("-"):   # p4c's lexer has no negative literal: -1 is an expression
            raise ValueError(body)
        return parse_integer(body)[0]
    except ValueError:
        raise P4InfoError(f"{what}: @{a.name} needs an integer, got '{a.body}'", a.span) from None


def user_id(annotations: tuple, what: str) -> int | None:
    """The value of an ``@id`` annotation, if any."""
    a = annotation(annotations, "id")
    return None if a is None else int_value(a, what)


def _add_structured(message, a: Annotation) -> None:
    message.name = a.name
    body = a.body.strip()
    if not body:
        message.expression_list.SetInParent()
        return
    parts = split_top_level(body)
    if all(re.match(r"^[A-Za-z_]\w*\s*=", p) for p in parts):
        for p in parts:
            key, value = p.split("=", 1)
            kv = message.kv_pair_list.kv_pairs.add()
            kv.key = key.strip()
            _structured_value(kv.value, value.strip(), a)
    else:
        for p in parts:
            _structured_value(message.expression_list.expressions.add(), p, a)


def _structured_value(expr, text: str, a: Annotation) -> None:
    """A structured annotation's compile-time value (p4c folds ``1==2`` or ``2*3`` first)."""
    if text.startswith('"') and text.endswith('"'):
        expr.string_value = unquote(text)
        return
    try:
        value = _fold(ast.parse(_as_python(text), mode="eval").body)
    except (SyntaxError, ValueError, TypeError, ZeroDivisionError):
        raise P4InfoError(f"@{a.name}: structured annotation values must be compile-time literals, "
                          f"not '{text}'", a.span) from None
    if isinstance(value, bool):
        expr.bool_value = value
    elif isinstance(value, str):
        expr.string_value = value
    else:
        if not -(1 << 63) <= value < (1 << 63):
            raise P4InfoError(f"@{a.name}: integer {value} in a structured annotation must fit in int64", a.span)
        expr.int64_value = value


def _as_python(text: str) -> str:
    """P4 constant-expression syntax as Python's: width-prefixed literals, ``true``, ``&&`` ..."""
    t = re.sub(r"\b(\d+)[wsWS](0[xXbBoO][0-9a-fA-F_]+|\d[\d_]*)", r"\2", text)
    t = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", t))
    t = t.replace("&&", " and ").replace("||", " or ")
    return re.sub(r"!(?!=)", " not ", t)


_BINARY = {ast.Add: lambda x, y: x + y, ast.Sub: lambda x, y: x - y, ast.Mult: lambda x, y: x * y,
           ast.Div: lambda x, y: x // y, ast.FloorDiv: lambda x, y: x // y, ast.Mod: lambda x, y: x % y,
           ast.BitAnd: lambda x, y: x & y, ast.BitOr: lambda x, y: x | y, ast.BitXor: lambda x, y: x ^ y,
           ast.LShift: lambda x, y: x << y, ast.RShift: lambda x, y: x >> y}
_COMPARE = {ast.Eq: lambda x, y: x == y, ast.NotEq: lambda x, y: x != y, ast.Lt: lambda x, y: x < y,
            ast.LtE: lambda x, y: x <= y, ast.Gt: lambda x, y: x > y, ast.GtE: lambda x, y: x >= y}


def _fold(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, (bool, int, str)):
        return node.value
    if isinstance(node, ast.UnaryOp):
        v = _fold(node.operand)
        if isinstance(node.op, ast.Not):
            return not v
        if isinstance(node.op, ast.USub):
            return -v
        if isinstance(node.op, ast.Invert):
            return ~v
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_fold(node.left), _fold(node.right))
    if isinstance(node, ast.BoolOp):
        values = [_fold(v) for v in node.values]
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
        return _COMPARE[type(node.ops[0])](_fold(node.left), _fold(node.comparators[0]))
    raise ValueError("not a compile-time value")
