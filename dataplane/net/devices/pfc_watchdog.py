"""A PFC watchdog, as switch operating systems ship one: find queues held by pause frames
for too long (a PFC storm or deadlock) and stop honouring pause for them for a while.

What it does follows SONiC's PFC watchdog (sonic-swss ``orchagent/pfcwd``, configured with
``pfcwd start --action drop|forward|alert --restoration-time T <detection-time>``; defaults
200 ms detection, 200 ms restoration, action ``drop``), which Arista EOS and NVIDIA Onyx
also describe (a queue in the paused state with no transmission for the detection time):

* every ``poll`` (detection / 4 by default), each lossless queue of each traffic-class port
  of the switch is checked: it is *stalled* if it holds packets, is paused by PFC and has
  sent nothing since the last poll;
* a queue stalled for ``detection`` is *stormed*: its pause is lifted and pause frames for
  its class are ignored; action ``drop`` discards the packets it holds and every packet
  that arrives for it while stormed (their PFC accounting is released, so the ingress ports
  they came in on send XON upstream); ``forward`` sends them regardless of pause;
* a stormed queue is *restored* once no pause frame for its class has arrived for
  ``restoration``: it honours pause again and accepts packets.

A switch gets one with ``pfc: {..., watchdog: {detection: 200us, restoration: 2ms,
action: drop}}`` and only on ports with traffic classes (``queues:``), where pause is per
queue (``dataplane.net.devices.tclass``). Counters: per queue ``storms`` and
``storm_drops``; per watchdog ``storms``, ``restorations`` and the log ``events``
(time, port, queue, what).
"""
from __future__ import annotations

from typing import Any

from dataplane.net.topology.spec import WatchdogConfig

__all__ = ["PfcWatchdog"]


class PfcWatchdog:
    """Watches the lossless queues of ``node``'s traffic-class ports (see the module docstring)."""

    def __init__(self, node: Any, config: WatchdogConfig, lossless: tuple[int, ...]):
        self.node, self.config, self.sim = node, config, node.sim
        self.lossless = lossless
        self.poll_ns = config.poll_ns or max(1, config.detection_ns // 4)
        self._since: dict[tuple[int, int], int] = {}     # (port, qid) -> first poll found stalled
        self._last_tx: dict[tuple[int, int], int] = {}
        self.storms = 0
        self.restorations = 0
        self.events: list[tuple[int, str, int, str]] = []
        self._running = False

    def start(self) -> None:
        """Poll from now on (as background work: it does not keep a run going on its own)."""
        if not self._running:
            self._running = True
            self.sim.background += 1
            self.sim.schedule(self.poll_ns, self._poll)

    def _poll(self) -> None:
        sim = self.sim
        sim.background -= 1
        now = sim.now
        for number, port in sorted(self.node.ports.items()):
            qs = getattr(port, "queue", None)
            if not hasattr(qs, "stormed"):
                continue
            for qid in self.lossless:
                if qid < qs.count:
                    self._check(port, qs, number, qid, now)
        if sim.pending > sim.background:
            sim.background += 1
            sim.schedule(self.poll_ns, self._poll)
        else:
            self._running = False

    def _check(self, port: Any, qs: Any, number: int, qid: int, now: int) -> None:
        key = (number, qid)
        st = qs.stats[qid]
        if qs.stormed[qid]:
            if now - qs.pause_seen[qid] >= self.config.restoration_ns:
                qs.stormed[qid] = qs.dropping[qid] = False
                self.restorations += 1
                self.events.append((now, port.name, qid, "restored"))
            self._last_tx[key] = st.tx_packets
            return
        stalled = bool(qs.queues[qid]) and qs.paused_until[qid] > now and st.tx_packets == self._last_tx.get(key)
        self._last_tx[key] = st.tx_packets
        if not stalled:
            self._since.pop(key, None)
            return
        since = self._since.setdefault(key, now - self.poll_ns)
        if now - since >= self.config.detection_ns:
            del self._since[key]
            self._storm(port, qs, qid, now)

    def _storm(self, port: Any, qs: Any, qid: int, now: int) -> None:
        self.storms += 1
        qs.stats[qid].storms += 1
        self.events.append((now, port.name, qid, f"storm ({self.config.action})"))
        qs.stormed[qid] = True
        qs.pause_seen[qid] = now
        port.pause_queue(qid, 0, now)
        if self.config.action == "drop":
            qs.dropping[qid] = True
            self._flush(port, qs, qid)
        if not port.busy and (qs or port.hold):
            port._start()

    def _flush(self, port: Any, qs: Any, qid: int) -> None:
        """Discard what queue ``qid`` holds, releasing the PFC accounting of each packet."""
        q = qs.queues[qid]
        pfc = getattr(self.node, "pfc", None)
        st = qs.stats[qid]
        while q:
            item, size, _, _ = q.popleft()
            qs.total -= 1
            qs.bytes[qid] -= size
            port.queue_bytes -= size
            st.storm_drops += 1
            if pfc is not None:
                pfc.dequeued(item)
        if port.record_depth:
            st.qdepth_flat += (self.sim.now, 0)
            port.stats.qdepth_flat += (self.sim.now, qs.total)

    def stats(self) -> dict[str, Any]:
        return {"storms": self.storms, "restorations": self.restorations,
                "events": [f"{t} ns {port} q{qid}: {what}" for t, port, qid, what in self.events]}
