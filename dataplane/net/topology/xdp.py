"""A host's ``xdp:`` field in topology YAML: the eBPF/XDP program on its NIC and its cost.

    h1: {kind: host, ip: 10.0.1.1/24, xdp: filter.p4}
    h2:
      kind: host
      xdp: {program: lb.p4, entries: lb-entries.txt, packet_rate: 5Mpps, latency: 2us, queue: 512p}

``program`` is an XDP program (``#include <xdp_model.p4>``, ``xdp(...) main``) or an eBPF
filter (``ebpf_model.p4``, ``ebpfFilter(...) main``); ``entries`` a runtime JSON or
simple_switch_CLI file for its tables; ``rate``, ``packet_rate``, ``latency``, ``queue`` the
cost model (``dataplane.net.devices.pipeline``; defaults in ``spec.DEFAULT_XDP_*``).
"""
from __future__ import annotations

import re
from typing import Any

from dataplane.net.core.units import parse_packet_rate, parse_queue, parse_rate, parse_time
from dataplane.net.topology.reader import Reader, show, suggest
from dataplane.net.topology.spec import XdpSpec

XDP_FIELDS = {"program", "entries", "rate", "packet_rate", "latency", "queue"}
_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_OTHER_ARCH = re.compile(r'#\s*include\s*[<"](v1model|pna|psa|ubpf_model)\.p4[>"]')
_EBPF_ARCH = re.compile(r'#\s*include\s*[<"](xdp_model|ebpf_model)\.p4[>"]')


def read_host_xdp(r: Reader, name: str, body: dict) -> XdpSpec:
    """Host ``name``'s ``xdp`` field (a program file, or a mapping with the fields above)."""
    field = f"topology.nodes.{name}.xdp"
    line = r.line_of(body, "xdp")
    value: Any = body["xdp"]
    if isinstance(value, str):
        value = {"program": value}
    if not isinstance(value, dict):
        raise r.err(line, field, f"must be a .p4 file or a mapping with 'program', got {show(value)}", value)
    for key in value:
        if key not in XDP_FIELDS:
            raise r.err(r.line_of(value, key) or line, f"{field}.{key}",
                        f"unknown field '{key}' (known: {', '.join(sorted(XDP_FIELDS))}){suggest(key, XDP_FIELDS)}",
                        key)
    if "program" not in value:
        raise r.err(line, f"{field}.program", f"host '{name}' has xdp settings but no program")
    pline = r.line_of(value, "program") or line
    program = r.program(value["program"], pline, f"{field}.program")
    _check_architecture(r, program, pline, f"{field}.program")
    spec = XdpSpec(program=program, line=line)
    if value.get("entries") is not None:
        spec.entries = r.find_file(value["entries"], r.line_of(value, "entries") or line, f"{field}.entries",
                                   "entries file")
    for key, attr, parse in (("rate", "rate_bps", parse_rate), ("packet_rate", "packet_rate_pps", parse_packet_rate),
                             ("latency", "latency_ns", parse_time), ("queue", "queue", parse_queue)):
        if key in value:
            setattr(spec, attr, r.unit(parse, value[key], r.line_of(value, key) or line, f"{field}.{key}"))
    return spec


def _check_architecture(r: Reader, program, line: int, field: str) -> None:
    """Refuse a program that says itself it is of another architecture (read, not compiled)."""
    try:
        text = _COMMENTS.sub(" ", program.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return
    other = _OTHER_ARCH.search(text)
    if other and not _EBPF_ARCH.search(text):
        raise r.err(line, field, f"a host's NIC runs XDP (xdp_model.p4) or eBPF filter (ebpf_model.p4) "
                                 f"programs; {program.name} includes {other.group(1)}.p4", program.name)
