"""A PFC watchdog, as switch operating systems ship one: find queues held by pause frames
for too long (a PFC storm or deadlock) and stop honouring pause for them for a while.

What it does follows SONiC's PFC watchdog (sonic-swss ``orchagent/pfcwd``, configured with
``pfcwd start --action drop|forward|alert --restoration-time T <detection-time>``; defaults
200 ms detection, 200 ms restoration, action ``drop``), which Arista EOS and NVIDIA Onyx
also describe (a queue in the paused state with no transmission for the detection time):

* every ``poll`` (detection / 4 by default), each lossless queue of each port of the switch
  is checked: it is *stalled* if it holds packets, is paused by PFC and has sent nothing
  since the last poll;
* a queue stalled for ``detection`` is *stormed*: its pause is lifted and pause frames for
  it are ignored; action ``drop`` discards the packets it holds and every packet that
  arrives for it while stormed (their PFC accounting is released, so the ingress ports they
  came in on send XON upstream); ``forward`` sends them regardless of pause;
* a stormed queue is *restored* once no pause frame for it has arrived for
  ``restoration``: it honours pause again and accepts packets.

A switch gets one with ``pfc: {..., watchdog: {detection: 200us, restoration: 2ms,
action: drop}}``. What a "lossless queue" is depends on the port:

* with traffic classes (``queues:``, ``dataplane.net.devices.tclass``) pause is per queue:
  the watchdog watches the queues of the lossless priorities (``pfc.priorities``), each on
  its own, and a stormed queue ignores pause frames for its class;
* with one queue (:class:`WatchedPort`) a pause frame for any class stops the whole port,
  so the port is the one queue watched: stalled when it holds packets, is paused and sent
  nothing; stormed, it ignores every pause frame (and with ``drop`` discards what it holds
  and what is queued on it) until none has arrived for ``restoration``.

Counters: per traffic-class queue ``storms`` and ``storm_drops`` (in its ``queues``
metrics), per single-queue port the same two as ``WatchedPort`` attributes; per watchdog
``storms``, ``restorations``, ``storm_drops`` and the log ``events`` (time, port, queue
(-1 for a whole port), what).

Polling is background work: it stops at the first poll that finds nothing else pending, so it
never keeps a run going. On several MPI ranks (``dataplane.net.parallel``) a rank sees only its
own events, and whether another rank still has work is known only at the end of a time window,
so there the watchdog polls on, and after the run the simulator has it cut its polls where one
process's would have stopped (``settle``): at the first poll after the last event that was not
background work, on any rank. Past that event nothing moves, so those polls can only have
restored queues (a queue stalls only while it holds packets and is paused, and such a port has
its resume pending: work), and ``settle`` takes those restorations back.
"""
from __future__ import annotations

from bisect import bisect_right
from typing import Any

from dataplane.net.devices.link import Port
from dataplane.net.devices.pfc import parse_pause
from dataplane.net.devices.tclass import QueueSet
from dataplane.net.topology.spec import WatchdogConfig

__all__ = ["PfcWatchdog", "WatchedPort"]


class WatchedPort(Port):
    """A single-queue switch port under a PFC watchdog: a plain ``Port`` (a pause stops it as
    a whole) that can be stormed (pause frames ignored) and, with the drop action, discard
    what is queued on it. Used only on switches with a watchdog, so plain ports pay nothing."""

    __slots__ = ("stormed", "dropping", "pause_seen", "storms", "storm_drops")

    def __init__(self, sim: Any, node: Any, number: int, name: str):
        super().__init__(sim, node, number, name)
        self.stormed = False      # the watchdog ignores this port's pause frames
        self.dropping = False     # stormed with the drop action
        self.pause_seen = 0       # when a pause frame (non-zero time) last arrived
        self.storms = 0
        self.storm_drops = 0

    def enqueue(self, item: Any, size: int) -> bool:
        if self.dropping:
            self.storm_drops += 1
            return False
        return Port.enqueue(self, item, size)

    def receive_control(self, data: bytes) -> None:
        quanta = parse_pause(data)
        if quanta is None or self.link is None:
            return
        if quanta:
            self.pause_seen = self.sim.now
        if self.stormed:
            self.stats.pause_rx += 1          # counted, not honoured
            return
        Port.receive_control(self, data)
        watchdog = getattr(self.node, "pfc_watchdog", None)
        if quanta and watchdog is not None:
            watchdog.start()


class _ClassQueue:
    """Queue ``qid`` of a traffic-class port, as the watchdog handles it."""

    def __init__(self, port: Any, qid: int):
        self.port, self.qid, self.qs = port, qid, port.queue

    def stalled_state(self, now: int) -> tuple[bool, int]:
        """(holds packets and is paused, packets sent so far)."""
        qs, qid = self.qs, self.qid
        return bool(qs.queues[qid]) and qs.paused_until[qid] > now, qs.stats[qid].tx_packets

    @property
    def stormed(self) -> bool:
        return self.qs.stormed[self.qid]

    def quiet_since(self) -> int:
        return self.qs.pause_seen[self.qid]

    def restore(self, stormed: bool = False, dropping: bool = False) -> None:
        """Honour pause again (or, taking a restoration back, ignore it again)."""
        self.qs.stormed[self.qid], self.qs.dropping[self.qid] = stormed, dropping

    def storm(self, now: int, drop: bool, pfc: Any) -> int:
        """Storm the queue (lift its pause; with ``drop`` discard what it holds); packets dropped."""
        qs, qid, port = self.qs, self.qid, self.port
        st = qs.stats[qid]
        st.storms += 1
        qs.stormed[qid] = True
        qs.pause_seen[qid] = now
        port.pause_queue(qid, 0, now)
        if not drop:
            return 0
        qs.dropping[qid] = True
        q = qs.queues[qid]
        n = len(q)
        while q:
            item, size, _, _ = q.popleft()
            qs.total -= 1
            qs.bytes[qid] -= size
            port.queue_bytes -= size
            if pfc is not None:
                pfc.dequeued(item)
        st.storm_drops += n
        if port.record_depth:
            st.qdepth_flat += (now, 0)
            port.stats.qdepth_flat += (now, qs.total)
        return n

    def drops(self) -> int:
        return self.qs.stats[self.qid].storm_drops


class _WholePort:
    """A single-queue ``WatchedPort``: the whole port is the watched queue."""

    qid = -1

    def __init__(self, port: WatchedPort):
        self.port = port

    def stalled_state(self, now: int) -> tuple[bool, int]:
        port = self.port
        return bool(port.queue) and port.paused_until > now, port.stats.tx_packets

    @property
    def stormed(self) -> bool:
        return self.port.stormed

    def quiet_since(self) -> int:
        return self.port.pause_seen

    def restore(self, stormed: bool = False, dropping: bool = False) -> None:
        self.port.stormed, self.port.dropping = stormed, dropping

    def storm(self, now: int, drop: bool, pfc: Any) -> int:
        port = self.port
        port.storms += 1
        port.stormed = True
        port.pause_seen = now
        n = 0
        if drop:              # emptied before the pause is lifted, so the head is not sent
            port.dropping = True
            q = port.queue
            n = len(q)
            while q:
                item, size, _, _ = q.popleft()
                port.queue_bytes -= size
                if pfc is not None:
                    pfc.dequeued(item)
            port.storm_drops += n
            if port.record_depth and n:
                port.stats.qdepth_flat += (now, 0)
        port.pause(0)
        return n

    def drops(self) -> int:
        return self.port.storm_drops


class PfcWatchdog:
    """Watches the lossless queues of ``node``'s ports (see the module docstring)."""

    def __init__(self, node: Any, config: WatchdogConfig, lossless: tuple[int, ...]):
        self.node, self.config, self.sim = node, config, node.sim
        self.lossless = lossless
        self.poll_ns = config.poll_ns or max(1, config.detection_ns // 4)
        self._since: dict[tuple[int, int], int] = {}     # (port, qid) -> first poll found stalled
        self._last_tx: dict[tuple[int, int], int] = {}
        self._watched: list[tuple[int, Any]] | None = None
        self.storms = 0
        self.restorations = 0
        self.events: list[tuple[int, str, int, str]] = []
        self._running = False
        # Several ranks: the simulator's hook (None in one process); the (time, key) of every
        # poll of this run, and of the pending one.
        sim = self.sim
        self._tick = getattr(sim, "background_tick", None)
        self._polls: list[tuple[int, int]] = []
        self._next = (0, 0)
        if self._tick is not None:
            sim.track_poller(self, node.actor)

    def start(self) -> None:
        """Poll from now on (as background work: it does not keep a run going on its own)."""
        if not self._running:
            self._running = True
            self._schedule()

    def _schedule(self) -> None:
        sim = self.sim
        sim.background += 1
        sim.schedule(self.poll_ns, self._poll)
        if self._tick is not None:
            self._next = (sim.now + self.poll_ns, sim._keys[sim.actor])

    def watched(self) -> list[tuple[int, Any]]:
        """(port number, queue) for every queue watched: the lossless queues of traffic-class
        ports, and every single-queue ``WatchedPort`` as a whole."""
        if self._watched is None:
            out: list[tuple[int, Any]] = []
            for number, port in sorted(self.node.ports.items()):
                if port.queue.__class__ is QueueSet:
                    out += [(number, _ClassQueue(port, qid)) for qid in self.lossless if qid < port.queue.count]
                elif isinstance(port, WatchedPort):
                    out.append((number, _WholePort(port)))
            self._watched = out
        return self._watched

    def _poll(self) -> None:
        sim = self.sim
        sim.background -= 1
        now = sim.now
        if self._tick is not None:
            self._tick()
            polls = self._polls
            if polls and polls[-1][0] < sim.window_start:
                polls.clear()      # the run's last event is in its last window: only its polls may be cut
            polls.append(self._next)
        for number, watched in self.watched():
            self._check(number, watched, now)
        if self._tick is not None or sim.pending > sim.background:
            self._schedule()
        else:
            self._running = False

    def settle(self, end: tuple[int, int], until_ns: int | None) -> tuple[int | None, int]:
        """Several ranks, after a run that ran out of work: keep the polls up to the first one
        after ``end`` (the last event that was not background work, as (time, key)), where one
        process's watchdog stopped; take back what later ones did, or take that first poll now
        if it is still pending (nothing has changed since ``end``). Returns its time (None: this
        run had no poll) and the polls one process ran less than this rank did (negative) or
        more (1)."""
        polls, self._polls = self._polls, []
        if not self._running:
            return None, 0
        first = bisect_right(polls, end)
        if first < len(polls):
            stop = polls[first]
            self._take_back_after(stop[0])
            more = first + 1 - len(polls)
        elif until_ns is None or self._next[0] <= until_ns:
            stop = self._next
            for number, watched in self.watched():
                self._check(number, watched, stop[0])
            more = 1
        else:
            return None, 0         # the first poll after ``end`` is past the run's end: pending in one process too
        self.sim.background -= self.sim.unschedule(self)
        self._running = False
        return stop[0], more

    def _take_back_after(self, t: int) -> None:
        """Undo what polls after ``t`` did: restorations only (see the module docstring)."""
        late = [e for e in self.events if e[0] > t]
        if not late:
            return
        self.events = [e for e in self.events if e[0] <= t]
        queues = {(watched.port.name, watched.qid): watched for _, watched in self.watched()}
        for _, port, qid, what in late:
            if what != "restored":
                raise AssertionError(f"PFC watchdog of {self.node.name}: {what} after the last event of the run")
            queues[(port, qid)].restore(True, self.config.action == "drop")
            self.restorations -= 1

    def _check(self, number: int, watched: Any, now: int) -> None:
        key = (number, watched.qid)
        held, sent = watched.stalled_state(now)
        if watched.stormed:
            if now - watched.quiet_since() >= self.config.restoration_ns:
                watched.restore()
                self.restorations += 1
                self.events.append((now, watched.port.name, watched.qid, "restored"))
            self._last_tx[key] = sent
            return
        stalled = held and sent == self._last_tx.get(key)
        self._last_tx[key] = sent
        if not stalled:
            self._since.pop(key, None)
            return
        since = self._since.setdefault(key, now - self.poll_ns)
        if now - since >= self.config.detection_ns:
            del self._since[key]
            self.storms += 1
            self.events.append((now, watched.port.name, watched.qid, f"storm ({self.config.action})"))
            watched.storm(now, self.config.action == "drop", getattr(self.node, "pfc", None))
            port = watched.port
            if not port.busy and (port.queue or port.hold):
                port._start()

    def result_state(self) -> dict[str, Any]:
        """What it counted, to be sent to rank 0 (``Session.gather``): its counters and log, and
        its single-queue ports' (a traffic-class queue's travel with the port's queue stats)."""
        return {"storms": self.storms, "restorations": self.restorations, "events": list(self.events),
                "ports": {watched.port.number: (watched.port.storms, watched.port.storm_drops,
                                                watched.port.stormed, watched.port.dropping)
                          for _, watched in self.watched() if watched.qid < 0}}

    def apply_result_state(self, state: dict[str, Any]) -> None:
        """On rank 0: take ``result_state`` from the rank that ran the switch."""
        self.storms, self.restorations, self.events = state["storms"], state["restorations"], state["events"]
        for number, (storms, drops, stormed, dropping) in state["ports"].items():
            port = self.node.ports[number]
            port.storms, port.storm_drops, port.stormed, port.dropping = storms, drops, stormed, dropping

    @property
    def storm_drops(self) -> int:
        """Packets the drop action discarded, held or arriving, over every watched queue."""
        return sum(watched.drops() for _, watched in self.watched())

    def stats(self) -> dict[str, Any]:
        return {"storms": self.storms, "restorations": self.restorations, "storm_drops": self.storm_drops,
                "events": [f"{t} ns {port} {f'q{qid}' if qid >= 0 else 'port'}: {what}"
                           for t, port, qid, what in self.events]}
