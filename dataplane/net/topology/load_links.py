"""The ``topology.links`` of a YAML topology: endpoints (``s1:p1``, ``h1:eth0``) checked against
the nodes and claimed once, and each link's settings over the file's defaults."""
from __future__ import annotations

import re
from typing import Any

from dataplane.net.core.units import parse_probability, parse_queue, parse_rate, parse_time
from dataplane.net.topology.reader import MAX_PORT, PORT_RE, PortBook, Reader, known_nodes, self_link, show
from dataplane.net.topology.spec import LINK_OVERHEADS, LinkSpec, TopologySpec

_HOST_IF_RE = re.compile(r"^(?:eth)?([0-9]+)$", re.IGNORECASE)


def _parse_endpoint(r: Reader, spec: TopologySpec, text: Any, line: int, field: str) -> tuple[str, int]:
    if not isinstance(text, str) or not text.strip():
        raise r.err(line, field, f"an endpoint must be written \"node:interface\", got {show(text)}", text)
    node, sep, iface = text.strip().partition(":")
    known = list(spec.switches) + list(spec.dpus) + list(spec.hosts)
    if node not in known:
        raise r.err(line, field, f"unknown node '{node}'{known_nodes(node, known)}", node)
    if node in spec.hosts:
        if not sep:
            return node, 0
        m = _HOST_IF_RE.match(iface)
        if not m or int(m.group(1)) != 0:
            raise r.err(line, field, f"host '{node}' has one interface, eth0; got '{iface}'", text)
        return node, 0
    if not sep or not iface:
        raise r.err(line, field, f"{'DPU' if node in spec.dpus else 'switch'} endpoint '{text}' needs a port, "
                                 f"e.g. \"{node}:p1\"", text)
    m = PORT_RE.match(iface)
    if not m:
        raise r.err(line, field, f"bad switch port '{iface}' in '{text}' (write pN or N, e.g. \"{node}:p1\")", text)
    port = int(m.group(1))
    if port > MAX_PORT:
        raise r.err(line, field, f"port {port} of '{node}' is out of range 0..{MAX_PORT} (511 is the drop port)", text)
    return node, port


def yaml_link(r: Reader, dflt: Any, ports: PortBook, body: dict, field: str) -> LinkSpec:
    """One link: both endpoints claimed in ``ports``, each setting from the link or ``dflt`` (the file's defaults)."""
    line = getattr(body, "line", 0)

    def at(k):
        return r.line_of(body, k) or line

    if "endpoints" not in body:
        raise r.err(line, f"{field}.endpoints", "missing 'endpoints' (e.g. [\"s1:p1\", \"h1:eth0\"])")
    eps = body["endpoints"]
    if not isinstance(eps, list) or len(eps) != 2:
        raise r.err(at("endpoints"), f"{field}.endpoints",
                    f"must list two endpoints, e.g. [\"s1:p1\", \"h1:eth0\"], got {show(eps)}")
    ends = []
    for text in eps:
        node, port = _parse_endpoint(r, ports.spec, text, at("endpoints"), f"{field}.endpoints")
        ends.append((node, port, text))
    if ends[0][:2] == ends[1][:2]:
        raise r.err(at("endpoints"), f"{field}.endpoints", f"both endpoints are '{eps[0]}'", eps[0])
    if ends[0][0] == ends[1][0]:
        raise r.err(at("endpoints"), f"{field}.endpoints", self_link(ends[0][0], eps[0], eps[1]), eps[0])
    for node, port, text in ends:
        ports.claim(node, port, at("endpoints"), f"{field}.endpoints", text)

    def get(k, parse, fallback):
        return r.unit(parse, body[k], at(k), f"{field}.{k}") if k in body else fallback

    mtu = r.positive_int(body["mtu"], at("mtu"), f"{field}.mtu", 68, 65535) if "mtu" in body else dflt.mtu
    return LinkSpec(a=ends[0][:2], b=ends[1][:2],
                    bandwidth_bps=get("bandwidth", parse_rate, dflt.bandwidth),
                    latency_ns=get("latency", parse_time, dflt.latency),
                    queue=get("queue", parse_queue, dflt.queue), mtu=mtu,
                    loss=get("loss", parse_probability, dflt.loss),
                    corruption=get("corruption", parse_probability, dflt.corruption),
                    line=line,
                    overhead=read_overhead(r, body["overhead"], at("overhead"), f"{field}.overhead")
                    if "overhead" in body else dflt.overhead)


def read_overhead(r: Reader, value: Any, line: int, field: str) -> str:
    """A link's wire overhead: ``ethernet`` (preamble, SFD, FCS, gap, 64 B minimum) or ``none``."""
    if value not in LINK_OVERHEADS:
        raise r.err(line, field, f"must be one of {', '.join(LINK_OVERHEADS)} (Ethernet preamble, FCS and "
                                 f"inter-frame gap on the wire, or the frame's bytes alone), got {show(value)}", value)
    return value

