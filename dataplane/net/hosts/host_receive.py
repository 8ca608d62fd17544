"""A host's receive path: a frame from its port up to the callback bound to its UDP port, the
ping app that owns its ICMP id, or the ARP resolver.

Mixed into ``Host`` (``dataplane.net.hosts.host``, whose docstring gives the order a frame
meets the stack in), which supplies ``up``, ``stats``, ``ip``, ``subnet_broadcast``,
``_mac_bytes``, ``_raw``, ``_udp``, ``_echo``, ``_fast_udp``, ``send_ip``, ``sim`` and
``_receive_arp`` (``ArpResolver``).
"""
from __future__ import annotations

import struct
from typing import Any

from dataplane.net.hosts import packets as pk

_ETH_IPV4 = b"\x08\x00"
_BCAST_BYTES = pk.BROADCAST_MAC.to_bytes(6, "big")
_ETH_IPV4_UDP = struct.Struct("!6s6xH" + pk._IPV4.format.lstrip("!") + pk._UDP.format.lstrip("!"))   # 42 bytes


class HostReceive:
    """What a host does with each frame its port delivers."""

    def receive(self, port: Any, data: bytes) -> None:
        stats = self.stats
        if not self.up:
            stats.dropped_down += 1
            return
        stats.rx_frames += 1
        stats.rx_bytes += len(data)
        if self._raw:
            now = self.sim.now
            consumed = False
            for cb in self._raw:
                if cb(data, now):
                    consumed = True
            if consumed:
                return
        if self._fast_udp and len(data) >= 42:
            # The common case read straight from the frame, the Ethernet, IPv4 and UDP headers in
            # one unpack: a UDP datagram without options, fragments or a UDP checksum. What the
            # general path below and _receive_ip and _receive_udp would count and deliver, in the
            # same order; anything else goes the general way (nothing is counted before that).
            (dst, ethertype, vihl, tos, total, ident, frag, ttl, proto, csum, src, dst_ip,
             sport, dport, ulen, ucsum) = _ETH_IPV4_UDP.unpack_from(data)
            if dst != self._mac_bytes and dst != _BCAST_BYTES:
                stats.dropped_not_for_us += 1
                return
            if ethertype == 0x0800 and vihl == 0x45 and proto == 17 and 28 <= total <= len(data) - 14 \
                    and not frag & 0x3FFF and not ucsum and 8 <= ulen <= total - 20:
                if (0x4500 + tos + total + ident + frag + (ttl << 8) + 17 + csum + src + dst_ip) % 0xFFFF:
                    stats.dropped_bad_checksum += 1      # pk.parse_ipv4's checksum_ok, as in ipv4_header
                    return
                if dst_ip != self.ip and dst_ip != pk.BROADCAST_IP and dst_ip != self.subnet_broadcast:
                    stats.dropped_not_for_us += 1
                    return
                stats.received += 1
                if tos & 3 == 3:
                    stats.ce_received += 1
                cb = self._udp.get(dport)
                if cb is None:
                    stats.dropped_no_listener += 1
                    return
                stats.udp_delivered += 1
                cb(src, sport, data[42:34 + ulen], tos, self.sim.now)
                return
        if len(data) < pk.ETH_HEADER_LEN:
            stats.dropped_malformed += 1
            return
        dst = data[0:6]
        if dst != self._mac_bytes and dst != _BCAST_BYTES:
            stats.dropped_not_for_us += 1
            return
        ethertype = data[12:14]
        if ethertype == _ETH_IPV4:
            self._receive_ip(data[14:])
        elif ethertype == b"\x08\x06":
            self._receive_arp(data[14:])
        else:
            stats.dropped_unsupported += 1

    def _receive_ip(self, data: bytes) -> None:
        stats = self.stats
        ip = pk.parse_ipv4(data)
        if ip is None:
            stats.dropped_malformed += 1
            return
        if not ip.checksum_ok:
            stats.dropped_bad_checksum += 1
            return
        dst = ip.dst
        if dst != self.ip and dst != pk.BROADCAST_IP and dst != self.subnet_broadcast:
            stats.dropped_not_for_us += 1
            return
        if ip.flags & 1 or ip.frag_offset:
            stats.dropped_unsupported += 1   # no reassembly in this stack
            return
        stats.received += 1
        if ip.tos & 3 == 3:
            stats.ce_received += 1
        proto = ip.protocol
        if proto == pk.PROTO_UDP:
            self._receive_udp(ip)
        elif proto == pk.PROTO_ICMP:
            self._receive_icmp(ip)
        else:
            stats.dropped_unsupported += 1

    def _receive_udp(self, ip: pk.IPv4) -> None:
        u = pk.parse_udp(ip.payload)
        if u is None:
            self.stats.dropped_malformed += 1
            return
        if u.checksum and pk.checksum(pk._pseudo_header(ip.src, ip.dst, pk.PROTO_UDP, u.length)
                                      + ip.payload[:u.length]) != 0:
            self.stats.dropped_bad_checksum += 1
            return
        cb = self._udp.get(u.dst_port)
        if cb is None:
            self.stats.dropped_no_listener += 1
            return
        self.stats.udp_delivered += 1
        cb(ip.src, u.src_port, u.payload, ip.tos, self.sim.now)

    def _receive_icmp(self, ip: pk.IPv4) -> None:
        m = pk.parse_icmp(ip.payload)
        if m is None:
            self.stats.dropped_malformed += 1
            return
        if not m.checksum_ok:
            self.stats.dropped_bad_checksum += 1
            return
        if m.type == pk.ICMP_ECHO_REQUEST and m.code == 0:
            if ip.dst != self.ip:
                return                        # like Linux (icmp_echo_ignore_broadcasts): no smurf replies
            # Keep the DSCP, clear ECN: a CE mark belongs to the request's path, not the reply's.
            if self.send_ip(ip.src, pk.PROTO_ICMP, pk.icmp_echo_reply(m.ident, m.seq, m.payload), ip.tos & 0xFC):
                self.stats.echo_replies_sent += 1
        elif m.type == pk.ICMP_ECHO_REPLY:
            cb = self._echo.get(m.ident)
            if cb is None:
                self.stats.dropped_no_listener += 1
                return
            cb(ip.src, m.ident, m.seq, m.payload, self.sim.now)
        else:
            self.stats.dropped_unsupported += 1
