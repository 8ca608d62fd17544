"""A switch's counters as OpenConfig leaves, for the gNMI server of ``dataplane run --serve``.

``switch_leaves(node)`` reads a ``SwitchNode``'s ports and gives every leaf as ``path -> value``,
a path being a tuple of ``(name, keys)`` elements (``keys`` a tuple of ``(key, value)`` pairs),
as gNMI addresses them. Per port, named by its name in the topology (``p1`` of ``leaf1:p1``):

openconfig-interfaces, ``/interfaces/interface[name=N]/state``:
  ``name``; ``oper-status`` (``UP`` or ``DOWN``, the link); ``counters/`` ``in-octets``,
  ``in-pkts`` (frames received), ``out-octets``, ``out-pkts`` (frames sent; bytes as captured,
  no FCS), ``out-discards`` (tail drops at the egress queue), ``out-errors`` (frames lost on the
  wire: link down, random loss, too big), ``in-errors`` (frames the link corrupted on their way
  in, which the fabric delivers), ``in-discards`` (0: the fabric discards nothing on input;
  what a P4 program drops is counted per switch, ``--json``'s ``switches``).
openconfig-if-ethernet, ``/interfaces/interface[name=N]/ethernet/state/counters``:
  ``in-mac-pause-frames``, ``out-mac-pause-frames`` (PAUSE and PFC frames).
openconfig-qos, ``/qos/interfaces/interface[interface-id=N]/output/queues/queue[name=Q]/state``
(one queue ``0``, or one per traffic class):
  ``name``, ``transmit-pkts``, ``transmit-octets``, ``dropped-pkts``, ``max-queue-len``
  (packets, the deepest so far); and two leaves of this emulator's beside OpenConfig's, the
  depth now: ``current-queue-len`` (packets) and ``current-queue-octets``.

Counters are the ones ``dataplane run --json`` prints under ``ports`` (``rx_bytes`` and
``rx_packets``, ``tx_bytes`` and ``tx_packets``, ``drops``, ``lost``, ``max_qdepth``,
``pause_rx`` and ``pause_tx``; per traffic class its ``queues``), read at the same moment.
"""
from __future__ import annotations

import time
from typing import Any, Callable, Optional, Union

__all__ = ["COUNTERS", "QUEUE_LEAVES", "CounterSource", "Leaf", "Path", "counter_schema", "interface_name", "switch_leaves"]

PathElem = tuple[str, tuple[tuple[str, str], ...]]
Path = tuple[PathElem, ...]
Leaf = Union[int, str]


COUNTERS = ("in-octets", "in-pkts", "in-discards", "in-errors", "out-octets", "out-pkts", "out-discards", "out-errors")
QUEUE_LEAVES = ("transmit-pkts", "transmit-octets", "dropped-pkts", "max-queue-len", "current-queue-len",
                "current-queue-octets")


def counter_schema(list_node: Callable[[str, dict], Any]) -> dict:
    """The schema of the leaves (module docstring) as ``dataplane.control.gnmi.paths`` reads it:
    containers are dicts, leaves None, lists ``list_node(key, children)``."""
    leaves = dict.fromkeys
    interface = {"state": {"name": None, "oper-status": None, "counters": leaves(COUNTERS)},
                 "ethernet": {"state": {"counters": leaves(("in-mac-pause-frames", "out-mac-pause-frames"))}}}
    queue = {"state": {"name": None, **leaves(QUEUE_LEAVES)}}
    return {"interfaces": {"interface": list_node("name", interface)},
            "qos": {"interfaces": {"interface": list_node("interface-id", {
                "output": {"queues": {"queue": list_node("name", queue)}}})}}}


class CounterSource:
    """What a gNMI server serves for one switch of a running network: ``name``, ``now_ns()``
    (simulated time), ``schema(list_node)`` and ``leaves()``, each read under ``lock`` (the
    simulator's, so a reading is one instant of the run). ``epoch_ns``: what simulated time 0
    is on the Unix clock, for gNMI's timestamps (default: now, when the source is made)."""

    def __init__(self, node: Any, lock: Any, epoch_ns: Optional[int] = None):
        self.node, self.lock, self.name = node, lock, node.name
        self.epoch_ns = time.time_ns() if epoch_ns is None else epoch_ns

    def schema(self, list_node: Callable[[str, dict], Any]) -> dict:
        """The schema of what ``leaves`` gives (``counter_schema``)."""
        return counter_schema(list_node)

    def now_ns(self) -> int:
        with self.lock:
            return self.node.sim.now

    def leaves(self) -> tuple[int, dict[Path, Leaf]]:
        """(simulated time ns, every leaf) at one instant."""
        with self.lock:
            return self.node.sim.now, switch_leaves(self.node)


def interface_name(port: Any) -> str:
    """The port's interface name: its name in the topology without the switch's (``p1``)."""
    return port.name.split(":", 1)[1] if ":" in port.name else port.name


def _e(elem: str, **keys: str) -> PathElem:
    return (elem, tuple((k.replace("_", "-"), v) for k, v in keys.items()))


def switch_leaves(node: Any) -> dict[Path, Leaf]:
    """Every leaf of ``node``'s ports (module docstring), in port order."""
    out: dict[Path, Leaf] = {}
    for number in sorted(node.ports):
        port = node.ports[number]
        name = interface_name(port)
        st = port.stats
        iface = (_e("interfaces"), _e("interface", name=name))
        state = iface + (_e("state"),)
        out[state + (_e("name"),)] = name
        out[state + (_e("oper-status"),)] = "UP" if port.up else "DOWN"
        peer = port.peer
        counters = (st.rx_bytes, st.rx_packets, 0, peer.stats.corrupted if peer is not None else 0,
                    st.tx_bytes, st.tx_packets, st.drops, st.lost)
        for leaf, value in zip(COUNTERS, counters):
            out[state + (_e("counters"), _e(leaf))] = value
        eth = iface + (_e("ethernet"), _e("state"), _e("counters"))
        out[eth + (_e("in-mac-pause-frames"),)] = st.pause_rx
        out[eth + (_e("out-mac-pause-frames"),)] = st.pause_tx
        queues = (_e("qos"), _e("interfaces"), _e("interface", interface_id=name), _e("output"), _e("queues"))
        for qname, leaves in _queues(port):
            qstate = queues + (_e("queue", name=qname), _e("state"))
            out[qstate + (_e("name"),)] = qname
            for leaf, value in leaves.items():
                out[qstate + (_e(leaf),)] = value
    return out


def _queues(port: Any) -> list[tuple[str, dict[str, int]]]:
    """(queue name, its counters): one per traffic class of a ``ClassPort``, else the port's one."""
    qset = port.queue
    stats = getattr(qset, "stats", None)
    if stats is not None:         # a QueueSet: its classes' own counters and depths
        return [(str(q), {"transmit-pkts": s.tx_packets, "transmit-octets": s.tx_bytes, "dropped-pkts": s.drops,
                          "max-queue-len": s.max_qdepth, "current-queue-len": len(qset.queues[q]),
                          "current-queue-octets": qset.bytes[q]})
                for q, s in enumerate(stats)]
    st = port.stats
    return [("0", {"transmit-pkts": st.tx_packets, "transmit-octets": st.tx_bytes, "dropped-pkts": st.drops,
                   "max-queue-len": st.max_qdepth, "current-queue-len": len(qset),
                   "current-queue-octets": port.queue_bytes})]
