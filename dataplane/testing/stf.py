"""p4c STF (Simple Test Framework) files parsed into plain dataclasses.

Grammar as p4c ``tools/stf/stf_parser.py`` plus the BMv2 driver's extensions
(``backends/bmv2/bmv2stf.py``, class ``Bmv2StfParser``). Every command has ``line``, the line
of its keyword. The BMv2 pass-through commands (``mc_mgrp_create``, ``mirroring_add``,
``register_write``, ...), which the driver sends verbatim to ``simple_switch_CLI``, become the
same operations ``dataplane.control`` produces for CLI files (their ``line`` is
``source[1]``). Key values and action arguments of ``add`` stay text, as the driver
translates them only once the table is known: see ``stf_key_to_match`` and friends, which
this module re-exports with ``expect_matches`` and ``describe_mismatch``.

Differences from p4c, all more permissive: ``remove all`` parses (p4c's lexer makes ``all``
an identifier, so its own grammar rejects the line); ``$N`` becomes ``[N]`` in every key name
(the driver rewrites only the last one); ``[N]`` may follow any part of a dotted name; counter
names may be dotted.
"""
from __future__ import annotations

import difflib
import re
from typing import Union

from dataplane.control import ops
from dataplane.control.config_errors import ConfigError, read_text_file
from dataplane.records import record
from dataplane.testing.stf_expect import describe_mismatch, expect_matches
from dataplane.testing.stf_keys import (
    order_action_args,
    resolve_key_name,
    resolve_suffix,
    stf_default_key,
    stf_key_to_match,
    stf_number,
    stf_priority_to_bmv2,
)
from dataplane.testing.stf_lexer import KEYWORDS, Token, tokenize

__all__ = [
    "StfCommand", "Add", "SetDefault", "Packet", "Expect", "NoPacket", "Wait", "Remove", "CheckCounter",
    "parse_stf", "load_stf", "expect_matches", "describe_mismatch", "stf_key_to_match", "stf_default_key",
    "stf_number", "stf_priority_to_bmv2", "resolve_key_name", "resolve_suffix", "order_action_args",
]


@record(frozen=True, slots=True, kw_only=True)
class _Cmd:
    line: int = 0


@record(frozen=True, slots=True, kw_only=True)
class Add(_Cmd):
    """``add TABLE [PRIO] KEY:VALUE... ACTION(ARG:VALUE, ...) [= ID]``.

    Values are the text written (``0x****0101``, ``0x0a000000/8``, ``7``); ``priority`` is
    STF's, where larger wins; ``entry_id`` names the entry (unused by the BMv2 driver).
    """

    table: str
    priority: int | None
    keys: list[tuple[str, str]]
    action: str
    args: list[tuple[str, str]]
    entry_id: str | None = None


@record(frozen=True, slots=True, kw_only=True)
class SetDefault(_Cmd):
    """``setdefault TABLE ACTION(ARG:VALUE, ...)``."""

    table: str
    action: str
    args: list[tuple[str, str]]


@record(frozen=True, slots=True, kw_only=True)
class Packet(_Cmd):
    """``packet PORT HEX...``: send ``data`` into ``port``."""

    port: int
    data: bytes


@record(frozen=True, slots=True, kw_only=True)
class Expect(_Cmd):
    """``expect PORT [HEX/*...][$]``: the next packet out of ``port`` must match.

    ``pattern`` is upper-case hex nibbles and ``*`` (one don't-care nibble each), or None
    for ``expect PORT`` alone, which accepts any one packet. ``exact_end`` is a trailing
    ``$``: the packet must not be longer than the pattern.
    """

    port: int
    pattern: str | None
    exact_end: bool = False


@record(frozen=True, slots=True, kw_only=True)
class NoPacket(_Cmd):
    """``no_packet`` (p4c parses it as an expect without a port; the BMv2 driver cannot run it)."""


@record(frozen=True, slots=True, kw_only=True)
class Wait(_Cmd):
    """``wait`` (ignored by the BMv2 driver)."""


@record(frozen=True, slots=True, kw_only=True)
class Remove(_Cmd):
    """``remove all`` (ignored by the BMv2 driver)."""

    what: str = "all"


@record(frozen=True, slots=True, kw_only=True)
class CheckCounter(_Cmd):
    """``check_counter C(INDEX) [packets|bytes OP N]``; without a check, p4c means (None, "==", 0).

    ``index`` is the text written: a number or an entry id. Ignored by the BMv2 driver.
    """

    counter: str
    index: str
    count_type: str | None = None
    op: str = "=="
    value: int = 0


StfCommand = Union[Add, SetDefault, Packet, Expect, NoPacket, Wait, Remove, CheckCounter, ops.Op]

_NUMBER_KINDS = ("DEC", "TERN", "BIN")
_COMPARE_OPS = ("==", "!=", "<", "<=", ">", ">=")
_DOLLAR_INDEX = re.compile(r"\$([0-9]+)")


class _Parser:
    """Recursive descent over the token list; a statement starts at a KEYWORD token."""

    def __init__(self, tokens: list[Token], filename: str):
        self.toks, self.i, self.file = tokens, 0, filename
        self.stmt_line = 0
        self.stmt_kw = ""

    # -- token helpers -------------------------------------------------------------------
    def peek(self, offset: int = 0) -> Token | None:
        j = self.i + offset
        return self.toks[j] if j < len(self.toks) else None

    def error(self, message: str, tok: Token | None = None) -> ConfigError:
        if tok is None:
            return ConfigError(f"{message}, but the file ends", self.file, self.stmt_line)
        return ConfigError(message, self.file, tok.line, tok.text)

    def next(self, *kinds: str, what: str) -> Token:
        tok = self.peek()
        if tok is None or tok.kind not in kinds:
            shown = "end of file" if tok is None else (f"'{tok.text}'" if tok.kind != "KEYWORD"
                                                      else f"command '{tok.text}'")
            raise ConfigError(f"expected {what}, got {shown}", self.file,
                              tok.line if tok else self.stmt_line, tok.text if tok else None)
        self.i += 1
        return tok

    def accept(self, kind: str) -> Token | None:
        tok = self.peek()
        if tok is not None and tok.kind == kind:
            self.i += 1
            return tok
        return None

    # -- grammar pieces ------------------------------------------------------------------
    def name(self, what: str) -> str:
        """qualified_name: ID ('[' DEC ']')? ('.' ID ('[' DEC ']')?)*"""
        parts = [self.next("ID", what=what).text]
        while True:
            if self.accept("["):
                parts.append(f"[{self.next('DEC', what='an index').text}]")
                self.next("]", what="']'")
            elif self.accept("."):
                parts.append("." + self.next("ID", what="a name after '.'").text)
            else:
                return "".join(parts)

    def number_text(self, what: str = "a number") -> str:
        return self.next(*_NUMBER_KINDS, what=what).text

    def integer(self, what: str) -> int:
        tok = self.next(*_NUMBER_KINDS, what=what)
        try:
            return stf_number(tok.text)
        except ValueError as e:
            raise self.error(f"bad {what} '{tok.text}': {e}", tok) from None

    def action(self) -> tuple[str, list[tuple[str, str]]]:
        """action: qualified_name '(' [ID ':' number (',' ID ':' number)*] ')'"""
        name = self.name("an action name")
        self.next("(", what=f"'(' after action '{name}'")
        args: list[tuple[str, str]] = []
        if not self.accept(")"):
            while True:
                arg = self.next("ID", what="an action argument name").text
                self.next(":", what=f"':' after argument '{arg}'")
                args.append((arg, self.number_text(f"a value for argument '{arg}'")))
                if self.accept(")"):
                    break
                self.next(",", what="',' or ')'")
        return name, args

    def data(self, allow_pattern: bool) -> tuple[str, bool]:
        """Packet data: concatenated DATA_* tokens on the keyword's line; returns (nibbles, '$' seen)."""
        out, exact = [], False
        while (tok := self.peek()) is not None and tok.kind.startswith("DATA_"):
            if exact:
                raise self.error("'$' must be the last thing on an expect line", tok)
            if tok.kind == "DATA_EXACT" or tok.kind == "DATA_TERN":
                if not allow_pattern:
                    raise self.error(f"'{tok.text}' is only allowed in expect data", tok)
                exact = tok.kind == "DATA_EXACT"
                if tok.kind == "DATA_TERN":
                    out.append("*")
            else:
                out.append(tok.text.upper())
            self.i += 1
        return "".join(out), exact

    def port(self) -> int:
        return int(self.next("DATA_DEC", what="a port number").text)

    # -- statements ----------------------------------------------------------------------
    def not_a_command(self, tok: Token) -> ConfigError:
        close = difflib.get_close_matches(tok.text.lower(), KEYWORDS, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        return self.error(f"expected a command (add, setdefault, packet, expect, ...), got '{tok.text}'{hint}", tok)

    def statement(self) -> StfCommand:
        if (t := self.peek()) is not None and t.kind != "KEYWORD":
            raise self.not_a_command(t)
        kw = self.next("KEYWORD", what="a command")
        self.stmt_line = line = kw.line
        self.stmt_kw = kw.text
        handler = getattr(self, "s_" + kw.text, None)
        if handler is not None:
            return handler(line)
        return self.direct(kw.text, line)

    def s_add(self, line: int) -> Add:
        table = self.name("a table name")
        priority = int(self.next("DEC", what="a priority").text) if (t := self.peek()) and t.kind == "DEC" else None
        keys: list[tuple[str, str]] = []
        while (t := self.peek()) is not None and t.kind == "ID":
            start = self.i
            name = self.name("a key name")
            if not self.accept(":"):
                self.i = start  # not a key: it is the action
                break
            value = self.number_text(f"a value for key '{name}'")
            if self.accept("/"):
                value += "/" + self.number_text("a prefix length after '/'")
            keys.append((_DOLLAR_INDEX.sub(r"[\1]", name), value))
        if not keys:
            raise self.error("add needs at least one KEY:VALUE before the action", self.peek())
        action, args = self.action()
        entry_id = self.next("ID", what="an entry id after '='").text if self.accept("=") else None
        return Add(table=table, priority=priority, keys=keys, action=action, args=args, entry_id=entry_id, line=line)

    def s_setdefault(self, line: int) -> SetDefault:
        table = self.name("a table name")
        action, args = self.action()
        return SetDefault(table=table, action=action, args=args, line=line)

    def s_packet(self, line: int) -> Packet:
        port = self.port()
        nibbles, _ = self.data(allow_pattern=False)
        if not nibbles:
            raise self.error("packet needs data after the port", self.peek())
        if len(nibbles) % 2:
            raise ConfigError(f"packet data has an odd number of hex digits ({len(nibbles)})", self.file, line)
        return Packet(port=port, data=bytes.fromhex(nibbles), line=line)

    def s_expect(self, line: int) -> Expect:
        port = self.port()
        pattern, exact = self.data(allow_pattern=True)
        if not pattern and not exact:
            return Expect(port=port, pattern=None, line=line)
        return Expect(port=port, pattern=pattern, exact_end=exact, line=line)

    def s_no_packet(self, line: int) -> NoPacket:
        return NoPacket(line=line)

    def s_wait(self, line: int) -> Wait:
        return Wait(line=line)

    def s_remove(self, line: int) -> Remove:
        tok = self.next("ID", what="'all' after remove")
        if tok.text.lower() != "all":
            raise self.error(f"only 'remove all' is supported, got '{tok.text}'", tok)
        return Remove(line=line)

    def s_check_counter(self, line: int) -> CheckCounter:
        counter = self.name("a counter name")
        self.next("(", what="'(' after the counter name")
        index = self.next("ID", *_NUMBER_KINDS, what="an entry id or index").text
        self.next(")", what="')'")
        t = self.peek()
        if t is None or t.kind != "ID" or t.text.lower() not in ("packets", "bytes"):
            return CheckCounter(counter=counter, index=index, line=line)
        self.i += 1
        op = self.next(*_COMPARE_OPS, what="a comparison (== != < <= > >=)").text
        value = self.integer("a count")
        return CheckCounter(counter=counter, index=index, count_type=t.text.lower(), op=op, value=value, line=line)

    def rates(self) -> list[tuple[float, int]]:
        """meter_rate: (number ['.' number] ':' number)+"""
        rates = []
        while (t := self.peek()) is not None and t.kind in _NUMBER_KINDS:
            whole = self.next(*_NUMBER_KINDS, what="a rate")
            text = whole.text + ("." + self.number_text("digits after '.'") if self.accept(".") else "")
            try:
                rate = float(stf_number(text)) if "." not in text else float(text)
            except ValueError:
                raise self.error(f"bad meter rate '{text}'", whole) from None
            self.next(":", what="':' between rate and burst")
            rates.append((rate, self.integer("a burst size")))
        if not rates:
            raise self.error("expected RATE:BURST", self.peek())
        return rates

    def direct(self, cmd: str, line: int) -> ops.Op:
        """The BMv2 commands the driver passes verbatim to simple_switch_CLI."""
        src = (self.file, line)
        if cmd == "mc_node_create" or cmd == "mc_node_update":
            first = self.integer("a rid" if cmd == "mc_node_create" else "a node handle")
            ports = [self.integer("a port")]
            while (t := self.peek()) is not None and t.kind in _NUMBER_KINDS:
                ports.append(self.integer("a port"))
            if cmd == "mc_node_create":
                return ops.McNodeCreate(rid=first, ports=ports, source=src)
            return ops.McNodeUpdate(handle=first, ports=ports, source=src)
        if cmd == "meter_set_rates":
            meter = self.name("a meter name")
            return ops.MeterSetRates(meter=meter, index=self.integer("an index"), rates=self.rates(), source=src)
        if cmd == "meter_array_set_rates":
            return ops.MeterArraySetRates(meter=self.name("a meter name"), rates=self.rates(), source=src)
        cls, fields = _DIRECT[cmd]
        values: dict[str, object] = {}
        for fname, what in fields:
            values[fname] = self.name(what) if what.endswith("name") else self.integer(what)
        return cls(**values, source=src)


# command -> (operation, ((field, what), ...)); a "what" ending in "name" reads a name.
_DIRECT: dict[str, tuple[type, tuple[tuple[str, str], ...]]] = {
    "mirroring_add": (ops.MirroringAdd, (("session", "a session id"), ("port", "a port"))),
    "mirroring_add_mc": (ops.MirroringAddMc, (("session", "a session id"), ("group", "a multicast group"))),
    "mirroring_delete": (ops.MirroringDelete, (("session", "a session id"),)),
    "mirroring_get": (ops.MirroringGet, (("session", "a session id"),)),
    "mc_mgrp_create": (ops.McGroupCreate, (("group", "a multicast group"),)),
    "mc_node_associate": (ops.McNodeAssociate, (("group", "a multicast group"), ("handle", "a node handle"))),
    "counter_read": (ops.CounterRead, (("counter", "a counter name"), ("index", "an index"))),
    "counter_write": (ops.CounterWrite, (("counter", "a counter name"), ("index", "an index"),
                                         ("packets", "a packet count"), ("bytes", "a byte count"))),
    "register_read": (ops.RegisterRead, (("register", "a register name"), ("index", "an index"))),
    "register_write": (ops.RegisterWrite, (("register", "a register name"), ("index", "an index"),
                                           ("value", "a value"))),
    "register_reset": (ops.RegisterReset, (("register", "a register name"),)),
    "meter_get_rates": (ops.MeterGetRates, (("meter", "a meter name"), ("index", "an index"))),
    "pvs_add": (ops.PvsAdd, (("value_set", "a value set name"), ("value", "a value"))),
    "pvs_remove": (ops.PvsRemove, (("value_set", "a value set name"), ("value", "a value"))),
    "pvs_clear": (ops.PvsClear, (("value_set", "a value set name"),)),
}


def parse_stf(text: str, filename: str = "<stf>") -> list[StfCommand]:
    """Parse STF text into commands in file order; raises ``ConfigError`` (``FILE:LINE: error: ...``)."""
    p = _Parser(tokenize(text, filename), filename)
    commands: list[StfCommand] = []
    while p.peek() is not None:
        commands.append(p.statement())
        t = p.peek()
        if t is not None and t.kind != "KEYWORD":
            if t.line > p.toks[p.i - 1].line:  # leftover at the start of a line: not a command
                raise p.not_a_command(t)
            raise p.error(f"unexpected '{t.text}' after the {p.stmt_kw} command", t)
    return commands


def load_stf(path: str) -> list[StfCommand]:
    """Read and parse an STF file."""
    text = read_text_file(path, "STF file")
    return parse_stf(text, str(path))
