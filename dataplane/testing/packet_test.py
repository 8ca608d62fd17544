"""Packet tests written by users in YAML, next to the program: ``NAME.ptest.yaml`` beside ``NAME.p4``.

::

    entries: NAME.json                 # optional: runtime JSON or simple_switch_CLI file
    tables:                            # optional: entries through the Python API
      - {table: ipv4_lpm, action: ipv4_forward, match: ["10.0.1.0/24"],
         params: {dstAddr: "08:00:00:00:01:11", port: 1}}
    cases:
      - name: forwarded to port 1
        port: 0
        packet: "000000000002 000000000001 0800 45000014..."      # hex, spaces allowed
        expect:
          - {port: 1, packet: "080000000111 ****...", exact: true}
      - name: dropped
        port: 0
        packet: "..."
        expect: []                                             # nothing may come out

Expected packets use STF's rules: ``*`` is a don't-care nibble, and without ``exact``
a longer packet matches (prefix). Each case is checked on its own: exactly the listed
outputs, in order per port.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from dataplane.control.config_errors import ConfigError, read_text_file, yaml_error
from dataplane.control.loader import load_entries
from dataplane.control.switch import Switch
from dataplane.errors import DataplaneError
from dataplane.testing.stf_expect import describe_mismatch, expect_matches


@dataclass
class CaseResult:
    name: str
    passed: bool
    detail: str = ""


def _hex(text: Any, where: str) -> str:
    s = "".join(str(text).split()).removeprefix("0x")
    if not s or any(c not in "0123456789abcdefABCDEF*" for c in s) or len(s) % 2:
        raise ConfigError(f"{where}: {text!r} is not an even number of hex digits (and '*')", where.split(":")[0], 0)
    return s


def run_packet_test(program: Path, test: Path) -> list[CaseResult]:
    """Run every case of ``test`` against a fresh switch running ``program``."""
    text = read_text_file(test, "packet test")
    try:
        spec = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise yaml_error(err, str(test), "cannot read packet test", text) from None
    if not isinstance(spec, dict) or not isinstance(spec.get("cases"), list):
        raise ConfigError("a packet test needs a 'cases' list", str(test), 1)
    sw = Switch.from_file(program)
    if spec.get("entries"):
        load_entries(sw, test.parent / spec["entries"])
    for i, t in enumerate(spec.get("tables") or [], 1):
        try:
            sw.table_add(t["table"], t["action"], t.get("match", ()), t.get("params", ()), t.get("priority"))
        except (KeyError, TypeError) as err:
            raise ConfigError(f"tables[{i}]: missing field {err}", str(test), 0) from None
        except DataplaneError as err:
            raise ConfigError(f"tables[{i}]: {err}", str(test), 0) from None
    results = []
    for i, case in enumerate(spec["cases"], 1):
        name = str(case.get("name", f"case {i}"))
        where = f"{test}: cases[{i}]"
        data = bytes.fromhex(_hex(case["packet"], where))
        outputs = sw.send(int(case.get("port", 0)), data)
        expected = case.get("expect") or []
        problems = []
        by_port: dict[int, list[bytes]] = {}
        for o in outputs:
            by_port.setdefault(o.port, []).append(o.data)
        want_ports: dict[int, list[dict]] = {}
        for e in expected:
            want_ports.setdefault(int(e["port"]), []).append(e)
        for port in sorted(set(by_port) | set(want_ports)):
            got, want = by_port.get(port, []), want_ports.get(port, [])
            for j, (e, g) in enumerate(zip(want, got)):
                pattern = _hex(e["packet"], where)
                if not expect_matches(pattern, bool(e.get("exact")), g):
                    problems.append(f"port {port}, packet {j}:\n" + describe_mismatch(pattern, bool(e.get("exact")), g))
            if len(got) != len(want):
                problems.append(f"port {port}: expected {len(want)} packet(s), got {len(got)}"
                                + "".join(f"\n  got {g.hex()}" for g in got[len(want):]))
        results.append(CaseResult(name, not problems, "\n".join(problems)))
    return results
