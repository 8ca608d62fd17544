"""Mininet's ``pingall``: every host pings every other, one ping at a time.

Mininet's ``pingAll`` runs ``ping -c1`` from each host to each other host in turn (hosts in
order, then destinations in order), each waiting for its reply or its timeout before the next
starts. The order matters wherever one ping leaves state behind for the next: an ARP request
teaches its target the sender's address, so in the P4 tutorials' ``multicast`` exercise (a
multicast group without h4's port) h1, h2 and h3 cannot reach h4 (their ARP requests never
reach it) while h4's own pings, which come last, get through; fired all at once, h4's ARP
requests teach the others its address while they still retry, and every ping succeeds.

A ping ends, as ``ping -c1`` does, at its reply; when the host gives up resolving the next hop
(``Host.on_unreachable``: Linux reports EHOSTUNREACH after its ARP probes and ping exits); when
nothing could be sent (no route, host down); or after ``timeout_ns`` without a reply. Then the
next starts at once.

The pings run as a chain of events on one simulator: a run on several MPI ranks cannot hand
the turn from a host on one rank to a host on another, so it uses ``pingall-parallel``.
"""
from __future__ import annotations

from typing import Any, Callable

from dataplane.net.apps.basic import echo_payload

PINGALL_TIMEOUT_NS = 1_000_000_000    # each ping's wait for its reply (the console's pingall: ping -W 1)


class PingAll:
    """Every host of ``hosts`` (in order) pings every other once, one at a time, from ``start_ns``.

    ``results`` holds (source, destination, answered) for each ping finished so far;
    ``stats[host]`` its ``sent`` and ``received`` counts; ``on_done()`` is called after the last.
    """

    def __init__(self, hosts: list[Any], timeout_ns: int = PINGALL_TIMEOUT_NS, start_ns: int = 0, tos: int = 0,
                 size: int = 56):
        self.hosts = list(hosts)
        self.pairs = [(a, b) for a in self.hosts for b in self.hosts if a is not b]
        self.timeout_ns, self.tos, self.size = timeout_ns, tos, size
        self.results: list[tuple[str, str, bool]] = []
        self.stats = {h.name: {"sent": 0, "received": 0} for h in self.hosts}
        self.rtts: list[int] = []
        self.on_done: Callable[[], None] | None = None
        self.done_ns: int | None = None
        self._k = -1
        self._sent_ns = 0
        # One watchdog event at a time, re-armed for the ping under way when it fires: a timer per
        # ping would leave a second of cancelled timers behind every answered ping, and keep an
        # open-ended run going that long after the last one.
        self._deadline: int | None = None
        self._watchdog_at: int | None = None
        if not self.pairs:
            self.done_ns = start_ns
            return
        self.sim = self.hosts[0].sim
        self._idents = {}
        for h in self.hosts:
            self._idents[h.name] = h.bind_echo(self._reply_to(h))
            h.on_unreachable(self._unreachable_from(h))
        self.sim.at(start_ns, self._next)

    @property
    def done(self) -> bool:
        return self.done_ns is not None

    @property
    def started(self) -> int:
        """Pings started so far (the one under way included)."""
        return min(self._k + 1, len(self.pairs)) if self._k >= 0 else 0

    def _next(self) -> None:
        self._k += 1
        if self._k >= len(self.pairs):
            self.done_ns = self.sim.now
            for h in self.hosts:
                h.unbind_echo(self._idents[h.name])
            if self._watchdog_at is not None:
                self.sim.background += 1       # left over, nothing to wait for (Simulator.background)
            if self.on_done is not None:
                self.on_done()
            return
        a, b = self.pairs[self._k]
        self._sent_ns = now = self.sim.now
        self.stats[a.name]["sent"] += 1
        if not a.send_echo_request(b.ip, self._idents[a.name], self._k & 0xFFFF, echo_payload(now, self.size),
                                   self.tos):
            self._finish(False)          # ping: "Network is unreachable", at once
            return
        self._deadline = now + self.timeout_ns
        if self._watchdog_at is None:
            self._arm(self._deadline)

    def _arm(self, at: int) -> None:
        self._watchdog_at = at
        self.sim.at(at, self._watchdog)

    def _watchdog(self) -> None:
        self._watchdog_at = None
        if self.done:
            self.sim.background -= 1
        elif self._deadline is not None and self.sim.now >= self._deadline:
            self._finish(False)
        elif self._deadline is not None:
            self._arm(self._deadline)

    def _finish(self, answered: bool) -> None:
        a, b = self.pairs[self._k]
        self._deadline = None
        if answered:
            self.stats[a.name]["received"] += 1
            self.rtts.append(self.sim.now - self._sent_ns)
        self.results.append((a.name, b.name, answered))
        self.sim.schedule(0, self._next)

    def _reply_to(self, host: Any) -> Callable[..., None]:
        def on_reply(src_ip: int, ident: int, seq: int, payload: bytes, time_ns: int) -> None:
            if 0 <= self._k < len(self.pairs) and len(self.results) == self._k:
                a, b = self.pairs[self._k]
                if a is host and src_ip == b.ip and seq == self._k & 0xFFFF:
                    self._finish(True)
        return on_reply

    def _unreachable_from(self, host: Any) -> Callable[[int], None]:
        def on_unreachable(hop: int) -> None:
            if 0 <= self._k < len(self.pairs) and len(self.results) == self._k:
                a, b = self.pairs[self._k]
                if a is host and host.next_hop(b.ip) == hop:
                    self._finish(False)
        return on_unreachable


def format_pingall(results: list[tuple[str, str, bool]], hosts: list[str], total: int) -> list[str]:
    """Mininet's report: a row per host of the destinations it reached (X: not), then the totals.
    ``total`` counts every ping the pattern holds; those a run ended before are left out of the
    rows and said so."""
    rows: dict[str, list[str]] = {h: [] for h in hosts}
    for a, b, ok in results:
        rows[a].append(b if ok else "X")
    lines = [f"{h} -> {' '.join(row)}".rstrip() for h, row in rows.items()]
    received = sum(ok for _, _, ok in results)
    sent = len(results)
    dropped = 100 * (sent - received) // sent if sent else 0
    lines.append(f"*** Results: {dropped}% dropped ({received}/{sent} received)")
    if sent < total:
        lines.append(f"*** the run ended before {total - sent} of the {total} pings were done (--duration)")
    return lines
