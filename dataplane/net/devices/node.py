"""What every network node has: a name, numbered ports, and the two hooks links call."""
from __future__ import annotations

from typing import Any

from dataplane.net.core.sim import Simulator
from dataplane.net.devices.link import Port


class Node:
    """Base of hosts and switches. Links call ``receive`` on arrival and ``dequeue`` when a
    queued item reaches the head of a port's queue and is about to be serialized."""

    kind = "node"
    #: handed to the pipeline with every packet when set (a ``dataplane.report.record.TableCounts``
    #: while a report records table hits); None keeps the untraced fast path
    trace: Any = None

    def __init__(self, sim: Simulator, name: str):
        self.sim = sim
        self.name = name
        self.actor = sim.add_actor()   # what its events run as (dataplane.net.core.sim)
        self.ports: dict[int, Port] = {}
        self.up = True

    def add_port(self, number: int, name: str) -> Port:
        port = Port(self.sim, self, number, name)
        self.ports[number] = port
        return port

    def receive(self, port: Port, data: bytes) -> None:
        raise NotImplementedError

    def dequeue(self, port: Port, item: Any, enq_time: int, enq_depth: int) -> bytes | None:
        """Bytes to put on the wire for a queued item; hosts queue bytes, so it is the item."""
        return item

    def transmit(self, port_number: int, data: bytes) -> bool:
        """Queue ``data`` on a port; False if the port does not exist, is down or its queue is full."""
        port = self.ports.get(port_number)
        if port is None or not self.up:
            return False
        return port.enqueue(data, len(data))
