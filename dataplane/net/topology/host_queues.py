"""A host's ``queues:`` and ``trust:`` fields in topology YAML: traffic classes on its NIC.

    h1: {kind: host, ip: 10.0.1.1/24, queues: 8}                  # a queue per priority, DSCP trusted
    h2: {kind: host, queues: {count: 4, scheduler: dwrr}, trust: pcp}

``queues`` is the setting switches take (``dataplane.net.topology.tclass_spec``; one queue, the
default, keeps the NIC one FIFO); ``trust`` (``dscp`` or ``pcp``) is where the NIC reads a
frame's priority (``dataplane.net.hosts.host_classes``). A namespace host's NIC is Linux's, so
it takes neither.
"""
from __future__ import annotations

from dataplane.net.topology.reader import Reader, show
from dataplane.net.topology.spec import HOST_TRUSTS
from dataplane.net.topology.tclass_spec import QueueConfig


def read_host_queues(r: Reader, name: str, body: dict, netns: bool) -> tuple[QueueConfig | None, str]:
    """Host ``name``'s traffic classes (None: one queue) and trust, checked."""
    field = f"topology.nodes.{name}"
    queues = None
    if body.get("queues") is not None:
        line = r.line_of(body, "queues")
        try:
            queues = QueueConfig.from_value(body["queues"])
        except ValueError as err:
            raise r.err(line, f"{field}.queues", str(err)) from None
        if netns:
            raise r.err(line, f"{field}.queues", "a namespace host (netns: true) sends through Linux's own stack "
                                                 "and qdiscs; queues: is for simulated hosts")
    trust = body.get("trust", "dscp")
    if trust not in HOST_TRUSTS:
        raise r.err(r.line_of(body, "trust"), f"{field}.trust",
                    f"must be {' or '.join(HOST_TRUSTS)} (how the NIC reads a frame's priority), got {show(trust)}",
                    trust)
    return queues, trust
