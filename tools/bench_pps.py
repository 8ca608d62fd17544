"""Packets per second of the engine on the built-in IPv4 router, next to a hand-written forwarder.

The workload: programs/ipv4_router.p4 with 1,000 LPM routes (/16 to /32), 64-128 byte
IPv4/UDP packets to addresses those routes cover. The baseline is a pure-Python
forwarder written for exactly this job, on bytes, measured in the same run: parse
Ethernet and IPv4, verify the IPv4 checksum, longest-prefix match through per-length
dicts, rewrite the MACs, decrement the TTL, recompute the checksum, emit bytes. The
ratio engine/baseline is the figure of merit (goal: at least 0.5).

The same run times the same IPv4 work as an eBPF filter (tools/bench_programs/ipv4_lpm_ebpf.p4,
an ``ebpfFilter``: parse, verify the checksum, LPM, rewrite, recompute the checksum, accept on a
hit; no deparser, so no bytes are written) and reports its packets/s and its ratio to the
v1model router's (goal: at least 0.8). So does the same work written for PSA
(programs/psa_router.p4: the checksum checked in the ingress parser and recomputed in the
ingress deparser with InternetChecksum, an egress that passes the packet through), with its
ratio to the v1model router's (goal: at least 0.8).

The batch engine (dataplane/engine/batch, numpy) runs the same router over the same packets
as one batch: ``batch_pps`` counts from the packets as bytes to the outputs as arrays (the
batch built from the bytes is timed, Python objects per output are not: the pcap path
writes the arrays, a batch of 65,536 packets at a time), and ``batch_ratio`` is batch_pps / engine_pps (goal: at least 10).
Both engines' outputs are compared before timing. Two larger workloads time both engines
the same way: ``lpm_100k`` (the router with 100,000 routes) and ``ternary3`` (three
ternary tables of 1,000 entries each, tools/bench_programs/ternary3_v1model.p4).

    python tools/bench_pps.py [--packets N] [--repeat N] [--json] [--no-large]
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

from dataplane.control.switch import Switch
from dataplane.resources import builtin_program

ROUTES = 1000
EBPF_PROGRAM = Path(__file__).resolve().parent / "bench_programs" / "ipv4_lpm_ebpf.p4"
TERNARY3_PROGRAM = Path(__file__).resolve().parent / "bench_programs" / "ternary3_v1model.p4"


def make_routes(rng: random.Random) -> list[tuple[int, int, int, int]]:
    routes = []
    seen = set()
    while len(routes) < ROUTES:
        plen = rng.choice((16, 20, 24, 24, 24, 28, 32))
        prefix = (rng.getrandbits(32) >> (32 - plen)) << (32 - plen)
        if (prefix, plen) in seen:
            continue
        seen.add((prefix, plen))
        routes.append((prefix, plen, 0x080000000000 | len(routes), 1 + len(routes) % 8))
    return routes


def make_packets(rng: random.Random, routes, count: int) -> list[bytes]:
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Ether

    packets = []
    for i in range(count):
        prefix, plen, _, _ = routes[i % len(routes)]
        host = rng.getrandbits(32 - plen) if plen < 32 else 0
        dst = prefix | host
        size = rng.randint(64, 128)
        pkt = Ether(src="00:00:00:00:00:01", dst="00:00:00:00:00:02") / IP(
            src="192.168.0.1", dst=".".join(str((dst >> s) & 255) for s in (24, 16, 8, 0)), ttl=64) / UDP()
        packets.append(bytes(pkt) + bytes(max(0, size - len(pkt))))
    return packets


def checksum(header: bytes) -> int:
    total = sum(int.from_bytes(header[i:i + 2], "big") for i in range(0, len(header), 2))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


class HandForwarder:
    """The baseline: the router's job written directly in Python on bytes."""

    def __init__(self, routes):
        self.by_len: dict[int, dict[int, tuple[int, int]]] = {}
        for prefix, plen, mac, port in routes:
            self.by_len.setdefault(plen, {})[prefix] = (mac, port)
        self.lengths = sorted(self.by_len, reverse=True)

    def forward(self, data: bytes):
        if len(data) < 34 or data[12:14] != b"\x08\x00":
            return None
        ip = data[14:34]
        if checksum(ip) != 0:
            pass  # like the P4 program: a bad checksum is recorded, not dropped
        dst = int.from_bytes(ip[16:20], "big")
        for plen in self.lengths:
            hit = self.by_len[plen].get((dst >> (32 - plen)) << (32 - plen) if plen else 0)
            if hit is not None:
                break
        else:
            return None
        mac, port = hit
        ttl = (ip[8] - 1) & 0xFF
        head = ip[:8] + bytes((ttl,)) + ip[9:10] + b"\x00\x00" + ip[12:20]
        ck = checksum(head)
        out = (mac.to_bytes(6, "big") + data[0:6] + data[12:14] + head[:10] + ck.to_bytes(2, "big")
               + head[12:] + data[34:])
        return port, out


def raw_packet(rng: random.Random, dst: int, size: int) -> bytes:
    """Ethernet/IPv4/UDP to ``dst`` with a right checksum, padded to ``size`` (no scapy: fast)."""
    ip = bytearray(b"\x45\x00\x00\x1c\x00\x01\x00\x00\x40\x11\x00\x00")
    ip += rng.getrandbits(32).to_bytes(4, "big") + dst.to_bytes(4, "big")
    ip[10:12] = checksum(bytes(ip)).to_bytes(2, "big")
    udp = rng.getrandbits(32).to_bytes(4, "big") + b"\x00\x08\x00\x00"
    data = b"\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x01\x08\x00" + bytes(ip) + udp
    return data + bytes(max(0, size - len(data)))


def compare_and_time(sw, packets: list[bytes], repeat: int) -> tuple[float, float]:
    """(per-packet engine pps, batch engine pps) on ``packets`` from port 0, after checking that
    both engines give the same results for the first 500."""
    from dataplane.engine.batch.layout import PacketBatch
    from dataplane.engine.batch.select import batch_pipeline

    pipeline = batch_pipeline(sw.dp)
    sample = packets[:500]
    got = sw.process_batch(sample, 0, engine="batch")
    want = [sw.dp.process(0, d) for d in sample]
    assert got == want, "batch and per-packet engines disagree"
    engine_s = batch_s = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        for data in packets:
            sw.dp.process(0, data)
        engine_s = min(engine_s, time.perf_counter() - t)
        t = time.perf_counter()
        for _ in pipeline.run_chunks(PacketBatch.from_packets(packets, 0)):
            pass
        batch_s = min(batch_s, time.perf_counter() - t)
    return len(packets) / engine_s, len(packets) / batch_s


def large_tables(packets_count: int, repeat: int) -> dict:
    """Both engines on a 100k-route LPM router and on three ternary tables of 1,000 entries."""
    out = {}
    rng = random.Random(7)
    sw = Switch.from_file(builtin_program("ipv4_router"))
    seen, routes = set(), []
    while len(routes) < 100_000:
        plen = rng.choice((8, 12, 16, 20, 22, 24, 24, 24, 28, 32))
        prefix = (rng.getrandbits(32) >> (32 - plen)) << (32 - plen)
        if (prefix, plen) not in seen:
            seen.add((prefix, plen))
            routes.append((prefix, plen))
    for i, (prefix, plen) in enumerate(routes):
        sw.table_add("ipv4_lpm", "ipv4_forward", [(prefix, plen)], [0x080000000000 | i, 1 + i % 8])
    packets = []
    for _ in range(packets_count):
        prefix, plen = routes[rng.randrange(len(routes))]
        packets.append(raw_packet(rng, prefix | (rng.getrandbits(32 - plen) if plen < 32 else 0), 64))
    e, b = compare_and_time(sw, packets, repeat)
    out["lpm_100k"] = {"routes": len(routes), "engine_pps": round(e), "batch_pps": round(b),
                       "batch_ratio": round(b / e, 2)}

    sw = Switch.from_file(TERNARY3_PROGRAM)
    prefixes = [0xFFFFFFFF, 0xFFFFFF00, 0xFFFF0000, 0xFF000000, 0]
    addrs = [rng.getrandbits(32) for _ in range(200)]
    def add(table, action, key, params):
        # A duplicate key and priority is refused by the table: draw again until 1,000 went in.
        while True:
            try:
                return sw.table_add(table, action, key(), params, priority=rng.randint(1, 1000))
            except Exception:
                continue

    for i in range(1000):
        sm, dm = rng.choice(prefixes), rng.choice(prefixes)
        proto = rng.choice([(6, 0xFF), (17, 0xFF), (0, 0)])
        action = "permit" if rng.random() < 0.8 else "drop"
        # add() calls each key function at once (again on a duplicate): the loop variables are current
        add("filter", action, lambda: [(rng.choice(addrs) & sm, sm), (rng.choice(addrs) & dm, dm), proto],  # noqa: B023
            [1 + i % 8] if action == "permit" else [])
        pm = rng.choice([(0xFFFF, 0xFFFF), (0xFFFF, 0), (0, 0xFFFF), (0xFF00, 0xFFFF)])
        add("classify", "set_class", lambda: [(rng.getrandbits(16) & pm[0], pm[0]),  # noqa: B023
                                              (rng.getrandbits(16) & pm[1], pm[1])],  # noqa: B023
            [rng.getrandbits(8)])
        qm = rng.choice([(0xFF, 0), (0xFF, 0xFFFF0000), (0, 0xFFFFFF00), (0xF0, 0)])
        add("qos", "mark", lambda: [(rng.getrandbits(8) & qm[0], qm[0]), (rng.choice(addrs) & qm[1], qm[1])],  # noqa: B023
            [rng.getrandbits(6)])
    packets = [raw_packet(rng, rng.choice(addrs), 64) for _ in range(packets_count)]
    e, b = compare_and_time(sw, packets, repeat)
    out["ternary3"] = {"entries_per_table": 1000, "engine_pps": round(e), "batch_pps": round(b),
                       "batch_ratio": round(b / e, 2)}
    return out


def run(packets_count: int, repeat: int = 3, large: bool = True) -> dict:
    rng = random.Random(1)
    routes = make_routes(rng)
    packets = make_packets(rng, routes, packets_count)

    sw = Switch.from_file(builtin_program("ipv4_router"))
    for prefix, plen, mac, port in routes:
        sw.table_add("ipv4_lpm", "ipv4_forward", [(prefix, plen)], [mac, port])
    hand = HandForwarder(routes)

    # Both must do the same work: check the outputs agree before timing.
    for data in packets[:200]:
        mine = sw.send(0, data)
        theirs = hand.forward(data)
        assert [(o.port, o.data) for o in mine] == ([theirs] if theirs else []), "engine and baseline disagree"

    ebpf = Switch.from_file(EBPF_PROGRAM)
    for prefix, plen, mac, port in routes:
        ebpf.table_add("ipv4_lpm", "ipv4_forward", [(prefix, plen)], [mac, port])
    for data in packets[:200]:
        accepted = [(o.port, o.data) for o in ebpf.send(0, data)]
        assert accepted == ([(0, data)] if hand.forward(data) else []), "eBPF filter and baseline disagree"

    psa = Switch.from_file(builtin_program("psa_router"))
    for prefix, plen, mac, port in routes:
        psa.table_add("ipv4_lpm", "ipv4_forward", [(prefix, plen)], [mac, port])
    for data in packets[:200]:
        theirs = hand.forward(data)
        assert [(o.port, o.data) for o in psa.send(0, data)] == ([theirs] if theirs else []), \
            "PSA router and baseline disagree"

    from dataplane.engine.batch.layout import PacketBatch
    from dataplane.engine.batch.select import batch_pipeline

    batch = batch_pipeline(sw.dp)
    assert sw.process_batch(packets[:500], 0, engine="batch") == \
        [sw.dp.process(0, d) for d in packets[:500]], "batch and per-packet engines disagree"

    def timed_batch() -> float:
        t = time.perf_counter()
        for _ in batch.run_chunks(PacketBatch.from_packets(packets, 0)):
            pass   # each chunk's outputs are arrays, as run-packet writes them
        return time.perf_counter() - t

    def timed(fn, *args) -> float:
        t = time.perf_counter()
        for data in packets:
            fn(*args, data)
        return time.perf_counter() - t

    # Interleaved, best of `repeat` each: the machine is shared and noisy.
    engine_s = baseline_s = ebpf_s = psa_s = batch_s = float("inf")
    for _ in range(repeat):
        engine_s = min(engine_s, timed(sw.dp.process, 0))
        batch_s = min(batch_s, timed_batch())
        baseline_s = min(baseline_s, timed(hand.forward))
        ebpf_s = min(ebpf_s, timed(ebpf.dp.process, 0))
        psa_s = min(psa_s, timed(psa.dp.process, 0))

    engine_pps = len(packets) / engine_s
    baseline_pps = len(packets) / baseline_s
    ebpf_pps = len(packets) / ebpf_s
    psa_pps = len(packets) / psa_s
    batch_pps = len(packets) / batch_s
    result = {"packets": len(packets), "routes": ROUTES, "engine_pps": round(engine_pps),
            "baseline_pps": round(baseline_pps), "ratio": round(engine_pps / baseline_pps, 3),
            "engine_us_per_packet": round(1e6 / engine_pps, 2),
            "ebpf_pps": round(ebpf_pps), "ebpf_us_per_packet": round(1e6 / ebpf_pps, 2),
            "ebpf_ratio_to_v1model": round(ebpf_pps / engine_pps, 3),
            "psa_pps": round(psa_pps), "psa_us_per_packet": round(1e6 / psa_pps, 2),
            "psa_ratio_to_v1model": round(psa_pps / engine_pps, 3),
            "batch_pps": round(batch_pps), "batch_ratio": round(batch_pps / engine_pps, 2),
            "repeat": repeat}
    if large:
        result.update(large_tables(packets_count, repeat))
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--packets", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=3, help="timed passes of each, interleaved; the best counts")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--no-large", action="store_true", help="skip the 100k-route LPM and ternary workloads")
    args = ap.parse_args()
    r = run(args.packets, max(1, args.repeat), not args.no_large)
    if args.json:
        print(json.dumps(r))
    else:
        print(f"engine   {r['engine_pps']:>10,} pkt/s  ({r['engine_us_per_packet']} us/packet)")
        print(f"baseline {r['baseline_pps']:>10,} pkt/s  (hand-written Python forwarder, same run)")
        print(f"ratio    {r['ratio']:>10}  (goal >= 0.5)")
        print(f"ebpf     {r['ebpf_pps']:>10,} pkt/s  ({r['ebpf_us_per_packet']} us/packet, the same work as an "
              f"ebpfFilter)")
        print(f"ratio    {r['ebpf_ratio_to_v1model']:>10}  (eBPF filter / v1model router, goal >= 0.8)")
        print(f"psa      {r['psa_pps']:>10,} pkt/s  ({r['psa_us_per_packet']} us/packet, programs/psa_router.p4)")
        print(f"ratio    {r['psa_ratio_to_v1model']:>10}  (PSA router / v1model router, goal >= 0.8)")
        print(f"batch    {r['batch_pps']:>10,} pkt/s  (the router on the numpy batch engine, one batch)")
        print(f"ratio    {r['batch_ratio']:>10}  (batch / per-packet engine, goal >= 10)")
        for name in ("lpm_100k", "ternary3"):
            if name in r:
                x = r[name]
                print(f"{name:<8} engine {x['engine_pps']:>9,} pkt/s, batch {x['batch_pps']:>10,} pkt/s, "
                      f"ratio {x['batch_ratio']}")
        print(f"(best of {r['repeat']} interleaved passes each)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
