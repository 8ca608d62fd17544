"""How p4c's BMv2 STF driver turns ``add`` commands into table entries (``backends/bmv2/bmv2stf.py``).

These helpers need what the parser cannot know (match kinds, widths, the program's names),
so the switch calls them with ``where=(file, line)`` of the command; errors are
``ConfigError`` at that place.

Key values (``TableKeyInstance``): exact values pass through; lpm is ``value/len``, or without
``/`` the prefix length counts the written digits, 4 bits per hex digit (1 binary, 3 octal)
and none for ``*`` digits (``0x0a01****`` = 0x0a010000/16); ternary must be hex, binary or
octal, each ``*`` digit is 0 in value and mask, every other digit all-ones in the mask, and
the mask covers only the digits written. Decimal lpm without ``/`` and decimal ternary
fail in p4c, so they are errors here; range and optional keys cannot be set from STF.
"""
from __future__ import annotations

import re
from typing import Iterable, Mapping

from dataplane.control.config_errors import ConfigError
from dataplane.control.keys import ExactKey, KeySpec, LpmKey, TernaryKey
from dataplane.control.values import ValueSyntaxError

Where = tuple[str, int]
_NOWHERE: Where = ("<stf>", 0)
_PLAIN = re.compile(r"^(?:0[xX](?P<x>[0-9a-fA-F]+)|0[bB](?P<b>[01]+)|0[oO](?P<o>[0-7]+)|(?P<d>[0-9]+))$")
_DIGITS = re.compile(r"^0(?P<p>[xXbBoO])(?P<digits>[0-9a-fA-F*]+)$")
_BASE = {"x": (16, 4, "f"), "b": (2, 1, "1"), "o": (8, 3, "7")}  # base, bits per digit, all-ones digit
# Bigger than any STF priority, so 10000 - prio stays positive (the driver's "hopefully large enough").
_BMV2_PRIORITY_BASE = 10000


def stf_number(text: str) -> int:
    """An STF number without don't-care digits: decimal, ``0x``, ``0b`` (or ``0o``). Raises ValueError."""
    t = text.strip()
    m = _PLAIN.match(t)
    if m is None:
        if "*" in t:
            raise ValueSyntaxError(f"'{t}' has '*' digits, which only ternary and lpm keys allow")
        raise ValueSyntaxError(f"'{t}' is not a number")
    base = {"x": 16, "b": 2, "o": 8, "d": 10}[m.lastgroup]
    return int(m.group(m.lastgroup), base)


def _check_width(value: int, width: int, text: str, what: str, where: Where) -> None:
    if value >= 1 << width:
        raise ConfigError(f"{what} '{text}' does not fit in {width} bits", *where, text)


def _number(text: str, where: Where) -> int:
    try:
        return stf_number(text)
    except ValueSyntaxError as e:
        raise ConfigError(str(e), *where, text) from None


def stf_key_to_match(text: str, kind: str, width: int, where: Where = _NOWHERE) -> KeySpec:
    """The match spec for an STF key value ``text`` on a key of match ``kind`` and ``width`` bits."""
    kind = kind.lower()
    value_text, slash, prefix_text = text.partition("/")
    if kind in ("exact", "valid"):
        if slash:
            raise ConfigError(f"exact key value '{text}' cannot have a prefix length", *where, text)
        value = _number(text, where)
        _check_width(value, width, text, "key value", where)
        return ExactKey(value, text)
    if kind not in ("lpm", "ternary"):
        raise ConfigError(f"{kind} keys cannot be set from STF (p4c's BMv2 driver rejects them)", *where, text)
    if kind == "lpm" and slash:
        value, prefix = _number(value_text, where), _number(prefix_text, where)
    else:
        m = _DIGITS.match(text)
        if m is None:
            why = ("write VALUE/PREFIX_LENGTH or hex/binary digits with '*'" if kind == "lpm"
                   else "write it in hex (0x), binary (0b) or octal (0o), '*' for don't-care digits")
            raise ConfigError(f"{kind} key value '{text}' is not supported: {why}", *where, text)
        base, bits, ones = _BASE[m.group("p").lower()]
        digits = m.group("digits")
        if any(d != "*" and int(d, 16) >= base for d in digits):
            raise ConfigError(f"'{text}' has a digit that is not base {base}", *where, text)
        value = int(digits.replace("*", "0"), base)
        if kind == "ternary":
            mask = int("".join("0" if d == "*" else ones for d in digits), base)
            _check_width(mask, width, text, "ternary mask of", where)
            _check_width(value, width, text, "key value", where)
            return TernaryKey(value, mask, text)
        prefix = (len(digits) - digits.count("*")) * bits
    _check_width(value, width, text, "key value", where)
    if prefix > width:
        raise ConfigError(f"prefix length {prefix} of '{text}' is longer than the {width}-bit key", *where, text)
    return LpmKey(value, prefix, text)


def stf_default_key(kind: str, where: Where = _NOWHERE) -> KeySpec:
    """The value the driver gives a key that ``add`` does not mention.

    Ternary ``0&&&0`` and lpm ``0/0`` match anything; exact (and valid) is ``0``, which must
    equal 0: it is not a wildcard.
    """
    kind = kind.lower()
    if kind == "ternary":
        return TernaryKey(0, 0, "0&&&0")
    if kind == "lpm":
        return LpmKey(0, 0, "0/0")
    if kind in ("exact", "valid"):
        return ExactKey(0, "0")
    raise ConfigError(f"{kind} keys cannot be set from STF (p4c's BMv2 driver rejects them)", *where)


def stf_priority_to_bmv2(priority: int) -> int:
    """The BMv2 priority the driver sends: ``10000 - prio`` (STF larger wins, BMv2 smaller wins)."""
    return _BMV2_PRIORITY_BASE - priority


def resolve_key_name(given: str, key_names: Iterable[str], where: Where = _NOWHERE) -> str:
    """The table key an STF key name refers to, in the driver's lookup order.

    Exact; ``name$``; ``name.$valid$``; ``x.valid`` as ``x.$valid$``; then any key ending in
    ``.name`` or ``.name$`` (the last such key wins, as in the driver's loop); ``valid``
    alone matches a ``.$valid$`` key or ``$valid$``. ``$N`` in the name means ``[N]``.
    """
    fields = list(key_names)
    key = re.sub(r"\$([0-9]+)", r"[\1]", given)
    for candidate in (key, key + "$", key + ".$valid$"):
        if candidate in fields:
            return candidate
    if key.endswith(".valid") and key[:-5] + "$valid$" in fields:
        return key[:-5] + "$valid$"
    found = None
    for f in fields:
        # The driver rebinds its search key to each hit, so later hits must extend that one.
        if f.endswith("." + key) or f.endswith("." + key + "$"):
            key = found = f
        elif key == "valid" and f.endswith(".$valid$"):
            key = found = f
    if found is not None:
        return found
    if key == "valid" and "$valid$" in fields:
        return "$valid$"
    raise ConfigError(f"table has no key '{given}' (keys: {', '.join(fields) or 'none'})", *where, given)


def resolve_suffix(given: str, names: Iterable[str], what: str = "table", where: Where = _NOWHERE) -> str:
    """A table or action name: exact, else the unique name ending with ``given`` (a plain suffix).

    ``names`` may map several names to one object (a table's qualified and ``@name`` names):
    hits on names of the same object are one hit.
    """
    objects = names if isinstance(names, Mapping) else None
    names = list(names)
    if given in names:
        return given
    hits = [n for n in names if n.endswith(given)]
    if objects is not None:
        first: dict = {}
        for n in hits:
            first.setdefault(id(objects[n]), n)
        hits = list(first.values())
    if len(hits) == 1:
        return hits[0]
    if hits:
        raise ConfigError(f"{what} name '{given}' is ambiguous between {hits[0]} and {hits[1]}", *where, given)
    raise ConfigError(f"no {what} named '{given}'", *where, given)


def order_action_args(args: list[tuple[str, str]], param_names: list[str], action: str = "action",
                      where: Where = _NOWHERE) -> list[str]:
    """Action argument texts in the action's declared parameter order; each must be given once."""
    given: dict[str, str] = {}
    for name, value in args:
        if name not in param_names:
            raise ConfigError(f"{action} has no parameter '{name}' (parameters: {', '.join(param_names) or 'none'})",
                              *where, name)
        if name in given:
            raise ConfigError(f"parameter '{name}' of {action} is given twice", *where, name)
        given[name] = value
    missing = [p for p in param_names if p not in given]
    if missing:
        raise ConfigError(f"{action} needs a value for parameter(s) {', '.join(missing)}", *where)
    return [given[p] for p in param_names]
