"""STF names as p4c's eBPF and uBPF test drivers write them, translated to the program's.

p4c's eBPF drivers (``backends/ebpf/targets/ebpfstf.py``, ``ubpf_target.py``) turn ``add`` and
``setdefault`` lines into C that fills the generated maps, so the names are the C names:

* a table is ``control_table`` with every ``.`` of an inlined name as ``_``
  (``pipe_c1_Check_ip`` is ``pipe.c1.Check_ip``); an action likewise (``pipe_Reject``),
  and ``_NoAction`` is ``NoAction``;
* a key is ``key.fieldN``, the N-th key of the table (eBPF), or ``key.`` followed by the key
  expression with ``.`` as ``_`` (uBPF: ``key.headers_ipv4_srcAddr``);
* an action argument left out is 0 (the C initializer zeroes it);
* an eBPF LPM key value is written into the C key struct as a host-order (little-endian)
  integer, while the LPM trie compares it in network order: ``0x010a/16`` is 10.1.0.0/16.
  The value's bytes are reversed here (over the key's width).

Names the program already uses are left alone, so a hand-written STF that names tables and
keys as the BMv2 driver does runs too.
"""
from __future__ import annotations

import dataclasses
import re

from dataplane.control.config_errors import ConfigError
from dataplane.testing import stf as S
from dataplane.testing.stf_keys import resolve_suffix

EBPF_FAMILY = ("ebpf", "xdp", "ubpf")
_FIELD = re.compile(r"^(?:key\.)?field([0-9]+)$")


def c_name(name: str) -> str:
    """A P4 name as the eBPF back ends spell it in C."""
    return name.replace(".", "_")


def translate(switch, commands: list) -> list:
    """``commands`` with the eBPF family's C names replaced by the program's (see the module docstring)."""
    arch = switch.program.architecture
    if arch not in EBPF_FAMILY:
        return commands
    tables = switch.table_names()
    by_c = {}
    for name, t in tables.items():
        by_c.setdefault(c_name(name), t)
    out = []
    for cmd in commands:
        if isinstance(cmd, (S.Add, S.SetDefault)):
            t = tables.get(cmd.table) or by_c.get(c_name(cmd.table)) or _by_suffix(cmd.table, tables)
            if t is not None:
                action = _action(switch, t, cmd.action)
                changes = {"table": t.qualified_name, "action": action, "args": _args(switch, t, action, cmd.args)}
                if isinstance(cmd, S.Add):
                    changes["keys"] = [_key(t, name, value, arch) for name, value in cmd.keys]
                cmd = dataclasses.replace(cmd, **changes)
        out.append(cmd)
    return out


def _by_suffix(given: str, tables: dict):
    try:
        return tables[resolve_suffix(given, tables)]
    except ConfigError:
        return None   # unknown or ambiguous: the runner reports it with its line


def _action(switch, t, given: str) -> str:
    names = switch.action_names(t)
    if given in names:
        return given
    if given == "_NoAction" and "NoAction" in names:
        return "NoAction"
    for name in names:
        if c_name(name) == given:
            return name
    return given


def _args(switch, t, action: str, args: list) -> list:
    """The arguments given, then 0 for each parameter left out: the drivers' C initializer
    (``.u = {.pipe_Reject = {}}``) leaves them zero."""
    try:
        _, act = switch._action(t, action)
    except Exception:   # an unknown action: the runner reports it with its line
        return args
    given = {name for name, _ in args}
    return list(args) + [(p.name, "0") for p in act.data_params if p.name not in given]


def _key(t, given: str, value: str, arch: str) -> tuple[str, str]:
    keys = [t.table.keys[i] for i in t.match_fields]
    names = [k.name for k in keys]
    if given in names:
        return given, value
    found = None
    m = _FIELD.match(given)
    if m is not None and arch != "ubpf" and int(m.group(1)) < len(keys):
        found = int(m.group(1))
    else:
        bare = given[4:] if given.startswith("key.") else given
        found = next((i for i, n in enumerate(names) if c_name(n) == bare), None)
    if found is None:
        return given, value
    kind, width = t.key_layout[found]
    if kind == "lpm" and arch != "ubpf" and width % 8 == 0:
        value = _host_order(value, width)
    return names[found], value


def _host_order(text: str, width: int) -> str:
    """An LPM ``VALUE/LEN`` whose value the driver wrote as a little-endian integer, in network order."""
    number, slash, plen = text.partition("/")
    try:
        v = int(number, 0)
    except ValueError:
        return text   # ternary nibbles and the like: leave them to the usual reader and its errors
    nbytes = width // 8
    if not 0 <= v < 1 << width:
        return text
    swapped = int.from_bytes(v.to_bytes(nbytes, "little"), "big")
    return f"{swapped:#x}{slash}{plen}"
