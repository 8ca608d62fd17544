"""Control-plane file formats: the tutorials' runtime JSON and BMv2 ``simple_switch_CLI`` files.

Pure parsing into plain dataclasses; nothing here knows the P4 program. This module gathers
the public API of ``runtime_json``, ``cli_parser``, ``ops``, ``keys`` and ``values``.
"""
from __future__ import annotations

from pathlib import Path

from dataplane.control.cli_parser import CliCommands, parse_cli_commands, parse_key
from dataplane.control.config_errors import ConfigError, ConfigWarning, read_text_file
from dataplane.control.keys import PRIORITY_KINDS, ExactKey, KeySpec, LpmKey, RangeKey, TernaryKey
from dataplane.control.ops import (
    CounterRead,
    CounterReset,
    CounterWrite,
    McGroupCreate,
    McGroupDestroy,
    McNodeAssociate,
    McNodeCreate,
    McNodeDestroy,
    McNodeDissociate,
    McNodeUpdate,
    MeterArraySetRates,
    MeterGetRates,
    MeterSetRates,
    MirroringAdd,
    MirroringAddMc,
    MirroringDelete,
    MirroringGet,
    Op,
    RegisterRead,
    RegisterReset,
    RegisterWrite,
    SetDefault,
    TableAdd,
    TableClear,
    TableDelete,
    TableModify,
    TableResetDefault,
)
from dataplane.control.runtime_json import (
    CloneSessionEntry,
    McGroupEntry,
    Replica,
    RuntimeConfig,
    RuntimeMatch,
    RuntimeTableEntry,
    parse_runtime_json,
)
from dataplane.control.values import ValueSyntaxError, parse_number, parse_value

__all__ = [
    "CliCommands", "parse_cli_commands", "parse_key", "ConfigError", "ConfigWarning", "PRIORITY_KINDS",
    "ExactKey", "KeySpec", "LpmKey", "RangeKey", "TernaryKey", "CounterRead", "CounterReset",
    "CounterWrite", "McGroupCreate", "McGroupDestroy", "McNodeAssociate", "McNodeCreate", "McNodeDestroy",
    "McNodeDissociate", "McNodeUpdate", "MeterArraySetRates", "MeterGetRates", "MeterSetRates",
    "MirroringAdd", "MirroringAddMc", "MirroringDelete", "MirroringGet", "Op", "RegisterRead", "RegisterReset",
    "RegisterWrite", "SetDefault", "TableAdd", "TableClear", "TableDelete", "TableModify", "TableResetDefault",
    "CloneSessionEntry", "McGroupEntry", "Replica", "RuntimeConfig", "RuntimeMatch", "RuntimeTableEntry",
    "parse_runtime_json", "ValueSyntaxError", "parse_number", "parse_value", "load_control_file",
]


def load_control_file(path: str | Path) -> RuntimeConfig | CliCommands:
    """Read and parse a control file: ``.json`` as runtime JSON, anything else as CLI commands."""
    path = Path(path)
    text = read_text_file(path)
    if path.suffix.lower() == ".json":
        return parse_runtime_json(text, str(path))
    return parse_cli_commands(text, str(path))
