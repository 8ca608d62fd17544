"""Tokenizer for p4c's STF packet-test files, following p4c ``tools/stf/stf_lexer.py``.

Rules kept from p4c: a newline puts the lexer back in "keyword" state, where the first
identifier of the line is looked up case-insensitively as a command keyword; ``packet`` and
``expect`` switch to "packet data" state for the rest of the line (decimal runs, hex runs,
``*`` and ``$``; blanks ignored); ``#`` comments; identifiers ``[A-Za-z_$][A-Za-z0-9_$]*`` or a
double-quoted string; numbers decimal, ``0x`` hex whose digits may be ``*``, ``0b`` binary
with ``*``. A line whose first identifier is not a keyword continues the statement before,
as in p4c, where newlines are only separators.

Differences, both more permissive: ``#`` also starts a comment in packet data, and ``\\r``
counts as a blank (p4c stops with a lexer error on either).
"""
from __future__ import annotations

import re

from dataplane.control.config_errors import ConfigError
from dataplane.records import record

# Core STF commands (stf_lexer.py) and the BMv2 driver's pass-through ones (bmv2stf.py).
KEYWORDS = frozenset("""
    add setdefault packet expect wait remove check_counter no_packet
    mirroring_add mirroring_add_mc mirroring_delete mirroring_get mc_mgrp_create mc_node_create
    mc_node_update mc_node_associate counter_read counter_write register_read register_write
    register_reset meter_get_rates meter_set_rates meter_array_set_rates pvs_add pvs_remove pvs_clear
""".split())

# Same order as p4c's rules: ply tries function rules in definition order, then string
# rules longest first, so "==" wins over "=" and every 0x constant lexes as TERN.
_INITIAL = re.compile(r"""
    (?P<TERN>0[xX][0-9a-fA-F*]+)
  | (?P<BIN>0[bB][*01]+)
  | (?P<DEC>[0-9]+)
  | (?P<ID>[a-zA-Z_$][a-zA-Z_$0-9]*)
  | "(?P<QID>[^"]+)"
  | (?P<OP>==|!=|<=|>=|[:,.\[\]()=<>/])
""", re.VERBOSE)
_DATA = re.compile(r"(?P<DATA_DEC>[0-9]+)|(?P<DATA_HEX>[0-9a-fA-F]+)|(?P<DATA_TERN>\*)|(?P<DATA_EXACT>\$)")
_BLANK = " \t\r"


@record(frozen=True, slots=True)
class Token:
    """A token: ``kind`` is KEYWORD, ID, TERN, BIN, DEC, an operator's text, or a DATA_* kind.

    For KEYWORD, ``text`` is the lower-cased command; for ID, quotes are already removed.
    """

    kind: str
    text: str
    line: int
    col: int


def tokenize(text: str, filename: str) -> list[Token]:
    """Split STF text into tokens; raises ``ConfigError`` on a character no rule accepts."""
    tokens: list[Token] = []
    for lineno, line in enumerate(text.split("\n"), start=1):
        pos, n = 0, len(line)
        state = "keyword"
        while pos < n:
            c = line[pos]
            if c in _BLANK:
                pos += 1
                continue
            if c == "#":
                break
            if state == "data":
                m = _DATA.match(line, pos)
                if m is None:
                    raise ConfigError(f"invalid packet data character '{c}'", filename, lineno, c)
                tokens.append(Token(m.lastgroup, m.group(), lineno, pos + 1))
                pos = m.end()
                continue
            m = _INITIAL.match(line, pos)
            if m is None:
                raise ConfigError(f"unexpected character '{c}'", filename, lineno, c)
            kind, value = m.lastgroup, m.group(m.lastgroup)
            if kind == "QID":
                kind = "ID"
            elif kind == "OP":
                kind = value
            if kind == "ID" and state == "keyword" and m.lastgroup == "ID":
                # Only the first identifier of a line can be a command (p4c's keyword state).
                if value.lower() in KEYWORDS:
                    kind, value = "KEYWORD", value.lower()
                state = "data" if value in ("packet", "expect") and kind == "KEYWORD" else "initial"
            tokens.append(Token(kind, value, lineno, pos + 1))
            pos = m.end()
    return tokens
