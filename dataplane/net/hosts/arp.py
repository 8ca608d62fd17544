"""ARP resolution for a host (RFC 826): the cache, packets waiting for a next hop's reply,
retried requests, and answers to requests for the host's address.

Mixed into ``Host``, which supplies ``arp_table`` (static entries in ``_static`` are never
overwritten), ``_pending``, ``arp_queue_len``, ``arp_retries``, ``arp_timeout_ns``, ``stats``,
``_tx``, ``_send_frame`` and ``_unreachable`` (called with a next hop given up on).
"""
from __future__ import annotations

from collections import deque

from dataplane.net.hosts import packets as pk


class _Pending:
    """Packets waiting for one next hop's ARP reply, and how many requests were sent."""
    __slots__ = ("packets", "tries")

    def __init__(self):
        self.packets: deque[bytes] = deque()
        self.tries = 0


class ArpResolver:
    """Next-hop resolution: queue packets for an unresolved hop, ask, learn, then send them."""

    def _queue_for_arp(self, hop: int, packet: bytes) -> bool:
        pend = self._pending.get(hop)
        if pend is None:
            pend = self._pending[hop] = _Pending()
            self._arp_try(hop, pend)
        if len(pend.packets) >= self.arp_queue_len:
            pend.packets.popleft()           # Linux drops the oldest: the newest is likelier still wanted
            self.stats.dropped_no_arp += 1
        pend.packets.append(packet)
        return True

    def _arp_try(self, hop: int, pend: _Pending) -> None:
        if self._pending.get(hop) is not pend:
            return                           # resolved (or abandoned) since this timer was set
        if pend.tries >= self.arp_retries:
            del self._pending[hop]
            self.stats.dropped_no_arp += len(pend.packets)
            for callback in list(self._unreachable):
                callback(hop)                # Linux: EHOSTUNREACH to the sockets that waited (ping stops)
            return
        pend.tries += 1
        if self.up and self._tx(pk.arp_request(self.mac, self.ip, hop)):
            self.stats.arp_requests_sent += 1
        self.sim.schedule(self.arp_timeout_ns, self._arp_try, hop, pend)

    def _learn(self, ip: int, mac: int) -> None:
        if ip in self._static:
            return
        self.arp_table[ip] = mac
        pend = self._pending.pop(ip, None)
        if pend is not None:
            self.stats.arp_resolved += 1
            for packet in pend.packets:
                self._send_frame(mac, packet)

    def _receive_arp(self, body: bytes) -> None:
        a = pk.parse_arp(body)
        if a is None:
            self.stats.dropped_malformed += 1
            return
        for_us = a.target_ip == self.ip
        # RFC 826: update an existing entry from any ARP; add one only when we are the target.
        if for_us or a.sender_ip in self.arp_table or a.sender_ip in self._pending:
            if a.sender_ip != 0:
                self._learn(a.sender_ip, a.sender_mac)
        if for_us and a.op == pk.ARP_REQUEST:
            if self._tx(pk.arp_reply(self.mac, self.ip, a.sender_mac, a.sender_ip)):
                self.stats.arp_replies_sent += 1
        elif not for_us and a.op == pk.ARP_REQUEST:
            self.stats.dropped_not_for_us += 1
