"""Parser for BMv2 ``simple_switch_CLI`` command files (the tutorials' ``sX-commands.txt``).

Syntax follows bmv2 ``tools/runtime_CLI.py``: one command per line, whitespace-separated
tokens, keys positional in P4 key order. Deliberate differences, all more permissive:
``#`` starts a comment (BMv2 reports "Unknown syntax" for such lines and goes on), handles
and ids accept ``0x`` as well as decimal, and a ``table_add`` without ``=>`` means "no
action parameters". Commands that only print, or that dataplane does not model, are kept
out of the operations and reported as warnings; unknown commands are errors.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

from dataplane.control import ops
from dataplane.control.config_errors import ConfigError, ConfigWarning
from dataplane.control.keys import ExactKey, KeySpec, LpmKey, RangeKey, TernaryKey
from dataplane.control.values import ValueSyntaxError, parse_number, parse_value

__all__ = ["CliCommands", "parse_cli_commands", "parse_key"]


@dataclass
class CliCommands:
    """The result of parsing a command file: operations in file order, plus warnings."""

    ops: list[ops.Op] = field(default_factory=list)
    warnings: list[ConfigWarning] = field(default_factory=list)


_MAX_BURST = 2**31 - 1


def _cut(token: str) -> str:
    """A token for a message, cut when long (the error says how long the value is)."""
    return token if len(token) <= 24 else token[:20] + "..."


class _Line:
    """One command line being parsed: its tokens and where it came from, for errors."""

    def __init__(self, file: str, line: int, cmd: str, args: list[str]):
        self.file, self.line, self.cmd, self.args = file, line, cmd, args

    @property
    def source(self) -> ops.Source:
        return (self.file, self.line)

    def error(self, message: str, token: str | None = None) -> ConfigError:
        return ConfigError(message, self.file, self.line, token)

    def count(self, usage: str, low: int, high: int | None = None) -> None:
        """Check the number of arguments; ``high`` None means no upper bound."""
        n = len(self.args)
        if n < low or (high is not None and n > high):
            want = str(low) if high == low else (f"at least {low}" if high is None else f"{low} to {high}")
            raise self.error(f"{self.cmd} takes {want} argument(s) ({self.cmd} {usage}), got {n}")

    def number(self, token: str, what: str) -> int:
        """A non-negative integer argument such as a handle, port or index."""
        try:
            value = parse_number(token)
        except ValueSyntaxError as e:
            why = str(e) if "too large" in str(e) else "expected a decimal or 0x number"
            raise self.error(f"bad {what} '{_cut(token)}': {why}", token) from None
        if value < 0:
            raise self.error(f"bad {what} '{_cut(token)}': must not be negative", token)
        return value

    def value(self, token: str, what: str) -> int:
        """A field value: number, IPv4, MAC or IPv6."""
        try:
            return parse_value(token)
        except ValueSyntaxError as e:
            raise self.error(f"bad {what} '{_cut(token)}': {e}", token) from None

    def rates(self, tokens: list[str]) -> list[tuple[float, int]]:
        """``rate:burst`` pairs, rate a float (units per microsecond), burst an int. The rate must
        be finite and not negative; the burst fits BMv2's ``burst_size`` (a 32-bit signed int)."""
        out = []
        for tok in tokens:
            rate, sep, burst = tok.partition(":")
            try:
                if not sep or len(burst) > 20:
                    raise ValueError
                pair = (float(rate), int(burst))
            except ValueError:
                raise self.error(f"bad meter rate '{_cut(tok)}': expected RATE:BURST, e.g. 0.5:10", tok) from None
            if not math.isfinite(pair[0]) or pair[0] < 0:
                raise self.error(f"bad meter rate '{_cut(tok)}': the rate must be a finite number of units per "
                                 "microsecond, not negative", tok)
            if not 0 <= pair[1] <= _MAX_BURST:
                raise self.error(f"bad meter rate '{_cut(tok)}': the burst must be 0..{_MAX_BURST} "
                                 "(BMv2 keeps it in a 32-bit signed int)", tok)
            out.append(pair)
        return out


def parse_key(text: str) -> KeySpec:
    """Parse one CLI match key: exact ``v``, lpm ``v/len``, ternary ``v&&&m``, range ``lo->hi``.

    Raises ``ValueSyntaxError``; the command parser adds file and line.
    """
    if "&&&" in text:
        parts = text.split("&&&")
        if len(parts) != 2 or not all(parts):
            raise ValueSyntaxError(f"ternary key '{text}' must be VALUE&&&MASK")
        return TernaryKey(parse_value(parts[0]), parse_value(parts[1]), text)
    if "->" in text:
        parts = text.split("->")
        if len(parts) != 2 or not all(parts):
            raise ValueSyntaxError(f"range key '{text}' must be LOW->HIGH")
        return RangeKey(parse_value(parts[0]), parse_value(parts[1]), text)
    if "/" in text:
        parts = text.split("/")
        if len(parts) != 2 or not all(parts):
            raise ValueSyntaxError(f"lpm key '{text}' must be VALUE/PREFIX_LENGTH")
        prefix = parse_number(parts[1])
        if prefix < 0:
            raise ValueSyntaxError(f"lpm key '{text}' has a negative prefix length")
        return LpmKey(parse_value(parts[0]), prefix, text)
    return ExactKey(parse_value(text), text)


def _keys(ln: _Line, tokens: list[str]) -> list[KeySpec]:
    keys = []
    for tok in tokens:
        if tok in ("&&&", "->"):
            raise ln.error(f"'{tok}' must be written without spaces around it, e.g. 10.0.0.0&&&255.0.0.0", tok)
        try:
            keys.append(parse_key(tok))
        except ValueSyntaxError as e:
            raise ln.error(f"bad match key '{_cut(tok)}': {e}", tok) from None
    return keys


def _table_add(ln: _Line) -> ops.Op:
    ln.count("TABLE ACTION KEY... => PARAM... [PRIORITY]", 2)
    table, action, rest = ln.args[0], ln.args[1], ln.args[2:]
    if "=>" in rest:
        cut = rest.index("=>")
        key_tokens, param_tokens = rest[:cut], rest[cut + 1:]
    else:
        key_tokens, param_tokens = rest, []
    keys = _keys(ln, key_tokens)
    priority = None
    if any(isinstance(k, (TernaryKey, RangeKey)) for k in keys):
        # BMv2 takes the last token as the priority of ternary and range tables.
        if not param_tokens:
            raise ln.error(f"table '{table}': ternary/range keys need a priority: "
                           "table_add T A KEYS => PARAMS PRIORITY")
        priority = ln.number(param_tokens[-1], "priority")
        param_tokens = param_tokens[:-1]
    params = [ln.value(t, "action parameter") for t in param_tokens]
    return ops.TableAdd(table=table, action=action, keys=keys, params=params, priority=priority,
                        source=ln.source)


def _set_default(ln: _Line) -> ops.Op:
    ln.count("TABLE ACTION PARAM...", 2)
    params = [ln.value(t, "action parameter") for t in ln.args[2:]]
    return ops.SetDefault(table=ln.args[0], action=ln.args[1], params=params, source=ln.source)


def _table_modify(ln: _Line) -> ops.Op:
    ln.count("TABLE ACTION HANDLE [=>] PARAM...", 3)
    rest = ln.args[3:]
    if rest and rest[0] == "=>":  # BMv2 tolerates it
        rest = rest[1:]
    return ops.TableModify(table=ln.args[0], action=ln.args[1], handle=ln.number(ln.args[2], "entry handle"),
                           params=[ln.value(t, "action parameter") for t in rest], source=ln.source)


def _ports_and_lags(ln: _Line, tokens: list[str]) -> tuple[list[int], list[int]]:
    if "|" in tokens:
        cut = tokens.index("|")
        ports, lags = tokens[:cut], tokens[cut + 1:]
    else:
        ports, lags = tokens, []
    return [ln.number(t, "port") for t in ports], [ln.number(t, "lag") for t in lags]


def _mc_node_create(ln: _Line) -> ops.Op:
    ln.count("RID PORT... [| LAG...]", 1)
    ports, lags = _ports_and_lags(ln, ln.args[1:])
    return ops.McNodeCreate(rid=ln.number(ln.args[0], "rid"), ports=ports, lags=lags, source=ln.source)


def _mc_node_update(ln: _Line) -> ops.Op:
    ln.count("HANDLE PORT... [| LAG...]", 2)
    ports, lags = _ports_and_lags(ln, ln.args[1:])
    return ops.McNodeUpdate(handle=ln.number(ln.args[0], "node handle"), ports=ports, lags=lags,
                            source=ln.source)


def _simple(cls: type, usage: str, spec: tuple[tuple[str, str], ...]) -> Callable[[_Line], ops.Op]:
    """A handler for a command with a fixed argument list; spec is (field, kind) pairs.

    kind is "name" (kept as text), "value" (number or address) or any other word, which
    names a non-negative integer such as "handle" or "port" in the error message.
    """
    def handler(ln: _Line) -> ops.Op:
        ln.count(usage, len(spec), len(spec))
        kwargs: dict[str, object] = {}
        for (fname, kind), tok in zip(spec, ln.args):
            if kind == "name":
                kwargs[fname] = tok
            elif kind == "value":
                kwargs[fname] = ln.value(tok, "value")
            else:
                kwargs[fname] = ln.number(tok, kind)
        return cls(**kwargs, source=ln.source)
    return handler


def _register_read(ln: _Line) -> ops.Op:
    ln.count("REGISTER [INDEX]", 1, 2)
    index = ln.number(ln.args[1], "index") if len(ln.args) == 2 else None
    return ops.RegisterRead(register=ln.args[0], index=index, source=ln.source)


def _meter_set_rates(ln: _Line) -> ops.Op:
    ln.count("METER INDEX RATE:BURST...", 2)
    return ops.MeterSetRates(meter=ln.args[0], index=ln.number(ln.args[1], "index"),
                             rates=ln.rates(ln.args[2:]), source=ln.source)


def _meter_array_set_rates(ln: _Line) -> ops.Op:
    ln.count("METER RATE:BURST...", 1)
    return ops.MeterArraySetRates(meter=ln.args[0], rates=ln.rates(ln.args[1:]), source=ln.source)


_HANDLERS: dict[str, Callable[[_Line], ops.Op]] = {
    "table_add": _table_add,
    "table_set_default": _set_default,
    "table_reset_default": _simple(ops.TableResetDefault, "TABLE", (("table", "name"),)),
    "table_modify": _table_modify,
    "table_delete": _simple(ops.TableDelete, "TABLE HANDLE", (("table", "name"), ("handle", "entry handle"))),
    "table_clear": _simple(ops.TableClear, "TABLE", (("table", "name"),)),
    "mc_mgrp_create": _simple(ops.McGroupCreate, "GROUP", (("group", "multicast group id"),)),
    "mc_mgrp_destroy": _simple(ops.McGroupDestroy, "GROUP", (("group", "multicast group id"),)),
    "mc_node_create": _mc_node_create,
    "mc_node_update": _mc_node_update,
    "mc_node_associate": _simple(ops.McNodeAssociate, "GROUP HANDLE",
                                 (("group", "multicast group id"), ("handle", "node handle"))),
    "mc_node_dissociate": _simple(ops.McNodeDissociate, "GROUP HANDLE",
                                  (("group", "multicast group id"), ("handle", "node handle"))),
    "mc_node_destroy": _simple(ops.McNodeDestroy, "HANDLE", (("handle", "node handle"),)),
    "mirroring_add": _simple(ops.MirroringAdd, "SESSION PORT", (("session", "session id"), ("port", "port"))),
    "mirroring_add_mc": _simple(ops.MirroringAddMc, "SESSION GROUP",
                                (("session", "session id"), ("group", "multicast group id"))),
    "mirroring_delete": _simple(ops.MirroringDelete, "SESSION", (("session", "session id"),)),
    "mirroring_get": _simple(ops.MirroringGet, "SESSION", (("session", "session id"),)),
    "register_read": _register_read,
    "register_write": _simple(ops.RegisterWrite, "REGISTER INDEX VALUE",
                              (("register", "name"), ("index", "index"), ("value", "value"))),
    "register_reset": _simple(ops.RegisterReset, "REGISTER", (("register", "name"),)),
    "pvs_add": _simple(ops.PvsAdd, "VALUE_SET VALUE", (("value_set", "name"), ("value", "value"))),
    "pvs_remove": _simple(ops.PvsRemove, "VALUE_SET VALUE", (("value_set", "name"), ("value", "value"))),
    "pvs_clear": _simple(ops.PvsClear, "VALUE_SET", (("value_set", "name"),)),
    "pvs_get": _simple(ops.PvsGet, "VALUE_SET", (("value_set", "name"),)),
    "counter_read": _simple(ops.CounterRead, "COUNTER INDEX", (("counter", "name"), ("index", "index"))),
    "counter_write": _simple(ops.CounterWrite, "COUNTER INDEX PACKETS BYTES",
                             (("counter", "name"), ("index", "index"), ("packets", "packet count"),
                              ("bytes", "byte count"))),
    "counter_reset": _simple(ops.CounterReset, "COUNTER", (("counter", "name"),)),
    "meter_get_rates": _simple(ops.MeterGetRates, "METER INDEX", (("meter", "name"), ("index", "index"))),
    "meter_set_rates": _meter_set_rates,
    "meter_array_set_rates": _meter_array_set_rates,
}

# Valid simple_switch_CLI commands that only print something.
_READ_ONLY = frozenset("""
    show_tables show_actions show_ports table_info table_show_actions table_num_entries table_dump
    table_dump_entry table_dump_entry_from_key table_dump_member table_dump_group act_prof_dump
    act_prof_dump_member act_prof_dump_group mc_dump switch_info
    get_time_elapsed get_time_since_epoch help greet shell
""".split())

# Valid commands that change BMv2 state in ways dataplane does not model.
_UNSUPPORTED = frozenset("""
    table_set_timeout table_indirect_add table_indirect_add_with_group table_indirect_delete
    table_indirect_set_default table_indirect_set_default_with_group table_indirect_reset_default
    table_indirect_create_member table_indirect_delete_member table_indirect_modify_member
    table_indirect_create_group table_indirect_delete_group table_indirect_add_member_to_group
    table_indirect_remove_member_from_group act_prof_create_member act_prof_delete_member
    act_prof_modify_member act_prof_create_group act_prof_delete_group act_prof_add_member_to_group
    act_prof_remove_member_from_group mc_set_lag_membership set_queue_depth set_queue_rate
    set_crc16_parameters set_crc32_parameters reset_state load_new_config_file swap_configs
    write_config_to_file serialize_state port_add port_remove
""".split())


def _strip_comment(line: str) -> str:
    # No CLI token contains '#', so cutting at the first one is safe.
    cut = line.find("#")
    return line if cut < 0 else line[:cut]


def parse_cli_commands(text: str, filename: str = "<commands>") -> CliCommands:
    """Parse a ``simple_switch_CLI`` command file into operations (see the module docstring).

    Raises ``ConfigError`` (``FILE:LINE: error: ...``) at the first malformed line.
    """
    result = CliCommands()
    for lineno, raw in enumerate(text.splitlines(), start=1):
        tokens = _strip_comment(raw).split()
        if not tokens:
            continue
        ln = _Line(filename, lineno, tokens[0], tokens[1:])
        handler = _HANDLERS.get(ln.cmd)
        if handler is not None:
            result.ops.append(handler(ln))
        elif ln.cmd in _READ_ONLY:
            result.warnings.append(ConfigWarning(f"'{ln.cmd}' only prints; ignored", filename, lineno))
        elif ln.cmd in _UNSUPPORTED:
            result.warnings.append(ConfigWarning(f"'{ln.cmd}' is not supported by dataplane; ignored",
                                                 filename, lineno))
        else:
            known = [*_HANDLERS, *_READ_ONLY, *_UNSUPPORTED]
            import difflib  # only for a misspelt command

            close = difflib.get_close_matches(ln.cmd, known, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise ln.error(f"unknown command '{ln.cmd}'{hint}", ln.cmd)
    return result
