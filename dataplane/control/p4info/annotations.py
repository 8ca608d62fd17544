"""Annotations and documentation as p4c copies them into P4Info messages.

p4c prints each annotation back as P4 (its ToP4 pass): an annotation it parses into
expressions (``@noWarn("unused")``, ``@name``, ...) as the expressions joined by ``, ``,
any other as its tokens joined by single spaces. ``@name``, ``@id``, ``@brief`` and
``@description`` never appear (they are represented elsewhere); structured annotations
(``@x[...]``) go to ``structured_annotations``.
"""
from __future__ import annotations

import re
from typing import Callable, Iterable

from dataplane.control.p4info.ids import P4InfoError
from dataplane.ir.node import Annotation, annotation

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
    """The integer argument of ``@a(N)``."""
    try:
        return int(a.body.strip().replace("_", ""), 0)
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
    if text.startswith('"'):
        expr.string_value = unquote(text)
    elif text in ("true", "false"):
        expr.bool_value = text == "true"
    else:
        try:
            expr.int64_value = _int_literal(text)
        except ValueError:
            raise P4InfoError(f"@{a.name}: structured annotation values must be literals, not '{text}'",
                              a.span) from None


def _int_literal(text: str) -> int:
    t = text.replace("_", "")
    m = re.match(r"^(-?)(\d+)[wsWS](.+)$", t)
    if m:
        return int(m.group(1) + str(int(m.group(3), 0)))
    return int(t, 0)
