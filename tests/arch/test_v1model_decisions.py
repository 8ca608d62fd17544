"""A v1model switch's decision cache gives every packet the fate the pipeline gives it.

The reference is the pipeline itself, run on the same switch without the cache
(``dp.process``): same output port, same bytes (checksum included), same drop. Every kind
of table write empties the cache before the next packet, so a flow whose entry changed takes
its new path; a packet already queued when an egress table changes runs egress again.
"""
from __future__ import annotations

import random

import pytest
from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.l2 import ARP, Ether

from dataplane.arch.v1model import PacketResult
from dataplane.arch.v1model_decisions import V1Decisions
from dataplane.arch.work import CachedEgress
from dataplane.control.switch import Switch
from dataplane.engine.decision import byte_find
from dataplane.lang.frontend import compile_source
from dataplane.resources import builtin_program

LPM, NHOP, SMAC = "MyIngress.ipv4_lpm", "MyIngress.ecmp_nhop", "MyEgress.smac"


@pytest.fixture(params=["big integers", "bytes"], autouse=True)
def lookup_form(request, monkeypatch):
    """Every rule here holds for both forms of a one-shape lookup: the big-integer one (CPython's)
    and the byte-indexed one (``byte_find``, PyPy's)."""
    monkeypatch.setattr(byte_find, "ENABLED", request.param == "bytes")
    return request.param
MAC = {1: "02:00:00:00:00:01", 2: "02:00:00:00:00:02", 3: "02:00:00:00:00:03"}


def ecmp_switch() -> Switch:
    """ecmp_router with direct routes to 10.0.1.0/24 (port 1) and 10.0.4.0/24 (port 3), an ECMP
    group of ports 2 and 3 for 10.0.2.0/24, and source MACs for ports 1 and 2 (port 3 keeps the packet's)."""
    sw = Switch.from_file(builtin_program("ecmp_router"))
    sw.table_add(LPM, "set_nhop", ["10.0.1.0/24"], ["0a:00:00:00:01:01", 1])
    sw.table_add(LPM, "set_ecmp", ["10.0.2.0/24"], [1, 2])
    sw.table_add(LPM, "set_nhop", ["10.0.4.0/24"], ["0a:00:00:00:04:04", 3])
    sw.table_add(NHOP, "set_nhop", [1, 0], ["0a:00:00:00:02:02", 2])
    sw.table_add(NHOP, "set_nhop", [1, 1], ["0a:00:00:00:03:03", 3])
    sw.table_add(SMAC, "rewrite_smac", [1], [MAC[1]])
    sw.table_add(SMAC, "rewrite_smac", [2], [MAC[2]])
    return sw


def cached(sw: Switch) -> V1Decisions:
    found = V1Decisions.for_switch(sw.dp, {1: None, 2: None, 3: None})
    assert isinstance(found, V1Decisions), found
    return found


def fate_by_pipeline(sw: Switch, port: int, data: bytes) -> tuple:
    r = sw.dp.process(port, data)
    return tuple((o.port, o.data) for o in r.outputs), tuple(r.drops)


def fate_by_cache(dec: V1Decisions, port: int, data: bytes) -> tuple:
    got = dec.decide(port, data)
    if got.__class__ is CachedEgress:
        return (((got.port, got.out),) if got.out is not None else ()), (() if got.drop is None else (got.drop,))
    if isinstance(got, str):
        return (), (got,)
    work, result = got      # a path the cache does not replay: the caller finishes it
    while work:
        work.extend(dec.dp.run_work(work.pop(0), result, None))
    return tuple((o.port, o.data) for o in result.outputs), tuple(result.drops)


def udp(dst: str, sport: int = 1000, ttl: int = 64, ident: int = 1, tos: int = 0, size: int = 20, proto=UDP) -> bytes:
    return bytes(Ether(src="0a:0a:0a:0a:0a:0a", dst="0b:0b:0b:0b:0b:0b") /
                 IP(src="10.0.9.9", dst=dst, ttl=ttl, id=ident, tos=tos) / proto(sport=sport, dport=4791) /
                 (b"x" * size))


def test_cached_fates_equal_the_pipeline_on_random_packets():
    """Random flows, TTLs, identifications, ECN bits, lengths, ports and some corrupted
    checksums: the cache's answer equals the pipeline's for every packet, and most are hits."""
    sw = ecmp_switch()
    dec = cached(sw)
    rng = random.Random(7)
    for _ in range(600):
        data = udp(rng.choice(["10.0.1.5", "10.0.2.7", "10.0.2.8", "10.0.3.1", "10.0.4.2"]), sport=rng.choice([1, 2, 3, 4]),
                   ttl=rng.choice([0, 1, 2, 64]), ident=rng.randrange(1 << 16), tos=rng.randrange(256),
                   size=rng.randrange(0, 60), proto=rng.choice([UDP, TCP]))
        if rng.random() < 0.1:      # a wrong IPv4 checksum: dropped by the program
            data = data[:24] + bytes([data[24] ^ 0x40]) + data[25:]
        if rng.random() < 0.05:
            data = bytes(Ether() / ARP())
        port = rng.choice([1, 2, 3])
        assert fate_by_cache(dec, port, data) == fate_by_pipeline(sw, port, data), data.hex()
    assert dec.cache.hits > dec.cache.misses > 50


def test_a_carried_field_shares_the_decision_and_leaves_as_it_came():
    """Two packets that differ in the IPv4 identification and ECN bits (read by nothing but the
    checksum) share one decision; each leaves with its own bits and a checksum of its own."""
    sw = ecmp_switch()
    dec = cached(sw)
    a, b = udp("10.0.1.5", ident=1, tos=0), udp("10.0.1.5", ident=0xBEEF, tos=3)
    assert fate_by_cache(dec, 2, a) == fate_by_pipeline(sw, 2, a)
    assert (dec.cache.hits, dec.cache.misses) == (0, 1)
    out = fate_by_cache(dec, 2, b)
    assert (dec.cache.hits, dec.cache.misses) == (1, 1)
    assert out == fate_by_pipeline(sw, 2, b)
    ip = IP(out[0][0][1][14:])
    assert (ip.id, ip.tos, ip.ttl) == (0xBEEF, 3, 63)
    sent = ip.chksum
    del ip.chksum               # scapy computes it afresh
    assert sent == IP(bytes(ip)).chksum


def test_a_read_field_makes_a_decision_of_its_own():
    """TTL is read (TTL <= 1 drops) and written: packets differing only in it do not share a decision."""
    sw = ecmp_switch()
    dec = cached(sw)
    for ttl in (64, 63, 2, 1):
        data = udp("10.0.1.5", ttl=ttl)
        assert fate_by_cache(dec, 2, data) == fate_by_pipeline(sw, 2, data)
    assert (dec.cache.hits, dec.cache.misses) == (0, 4)
    assert fate_by_cache(dec, 2, udp("10.0.1.5", ttl=1)) == ((), ("dropped in ingress (egress_spec = 511)",))
    assert dec.cache.hits == 1


# ---- every kind of table write empties the cache -------------------------------------------------------------
def _modify(sw: Switch, table: str, action: str, params: list) -> None:
    sw.table_modify(table, sw.table_entries(table)[0].handle, action, params)


WRITES = {
    "add": lambda sw: sw.table_add(LPM, "set_nhop", ["10.0.1.5/32"], ["0a:00:00:00:09:09", 2]),
    "modify": lambda sw: _modify(sw, LPM, "set_nhop", ["0a:00:00:00:09:09", 2]),
    "delete": lambda sw: sw.table_delete(LPM, sw.table_entries(LPM)[0].handle),
    "clear": lambda sw: sw.table_clear(LPM),
    "default action": lambda sw: sw.table_set_default(NHOP, "set_nhop", ["0a:00:00:00:09:09", 3]),
    "reset": lambda sw: sw.dp.tables[LPM].reset(),
    "egress modify": lambda sw: _modify(sw, SMAC, "rewrite_smac", ["02:00:00:00:00:99"]),
    "egress default action": lambda sw: sw.table_set_default(SMAC, "rewrite_smac", ["02:00:00:00:00:77"]),
}
#: the flow each write changes: 10.0.1.5 takes the direct route (port 1); ecmp_nhop's default
#: action, to a flow of the ECMP group when the group has no members; smac's, to a port without an entry
FLOW = {name: "10.0.1.5" for name in WRITES}
FLOW["default action"] = "10.0.2.7"
FLOW["egress default action"] = "10.0.4.1"      # port 3 has no smac entry


def warm(dec: V1Decisions, data: bytes) -> tuple:
    first = fate_by_cache(dec, 3, data)
    assert fate_by_cache(dec, 3, data) == first and dec.cache.hits == 1 and dec.cache.entries == 1
    return first


@pytest.mark.parametrize("name", list(WRITES))
def test_a_table_write_empties_the_cache(name):
    """After the write the next packet of a warmed flow gets its new fate, which differs from
    the old one (a stale decision would fail here) and equals the pipeline's."""
    sw = ecmp_switch()
    if name == "default action":       # the group has no members: its flows meet ecmp_nhop's default
        sw.table_clear(NHOP)
    dec = cached(sw)
    data = udp(FLOW[name])
    before = warm(dec, data)
    WRITES[name](sw)
    assert dec.cache.entries == 0
    after = fate_by_cache(dec, 3, data)
    assert after == fate_by_pipeline(sw, 3, data)
    assert after != before


def test_a_write_the_cache_did_not_hear_of_would_be_caught():
    """The check above fails when the cache is not told of a write (it proves something)."""
    sw = ecmp_switch()
    dec = cached(sw)
    data = udp("10.0.1.5")
    before = warm(dec, data)
    dec.detach()
    WRITES["modify"](sw)
    assert fate_by_cache(dec, 3, data) == before != fate_by_pipeline(sw, 3, data)


def test_a_queued_packet_runs_egress_again_after_an_egress_write():
    """A packet decided before an egress table changed leaves with the bytes egress makes after
    the change (as without the cache, where egress runs at dequeue); one decided after leaves
    with the cached bytes."""
    sw = ecmp_switch()
    dec = cached(sw)
    data = udp("10.0.1.5")
    dec.decide(3, data)
    queued = dec.decide(3, data)
    assert queued.epoch == dec.epoch
    ingress_only = dec.decide(3, udp("10.0.1.5", ident=9))
    sw.table_add(LPM, "set_nhop", ["10.0.3.0/24"], ["0a:00:00:00:09:09", 2])      # an ingress write
    assert ingress_only.epoch == dec.epoch       # its egress did not change: the cached bytes stand
    _modify(sw, SMAC, "rewrite_smac", ["02:00:00:00:00:99"])
    assert queued.epoch != dec.epoch
    work = dec.egress_work(queued, None)
    result = PacketResult()
    assert sw.dp.run_work(work, result, None) == []
    assert [(o.port, o.data) for o in result.outputs] == list(fate_by_pipeline(sw, 3, data)[0])
    assert result.outputs[0].data[6:12] == bytes.fromhex("020000000099")


# ---- what the cache refuses --------------------------------------------------------------------------------
HEAD = """
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct headers { h_t h; }
struct metadata { bit<8> x; }
parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
"""
INGRESS = {
    "stateless": ("apply { sm.egress_spec = (bit<9>)hdr.h.a; }", None),
    "register": ("register<bit<8>>(4) r; apply { r.write(0, hdr.h.a); sm.egress_spec = 1; }", "extern instances"),
    "counter": ("counter(4, CounterType.packets) c; apply { c.count(0); sm.egress_spec = 1; }", "extern instances"),
    "random": ("apply { random(meta.x, 0, 7); sm.egress_spec = (bit<9>)meta.x; }", "random"),
    "clock": ("apply { hdr.h.b = (bit<8>)sm.ingress_global_timestamp; sm.egress_spec = 1; }", "time or queue"),
    "action profile": ("""action fwd(bit<9> p) { sm.egress_spec = p; }
        table t { key = { hdr.h.a: exact; } actions = { fwd; } implementation = action_profile(4); }
        apply { t.apply(); }""", "extern instances"),
    "direct counter": ("""direct_counter(CounterType.packets) dc; action fwd(bit<9> p) { sm.egress_spec = p; }
        table t { key = { hdr.h.a: exact; } actions = { fwd; } counters = dc; }
        apply { t.apply(); }""", "extern instances"),
}


@pytest.mark.parametrize("name", list(INGRESS))
def test_programs_with_state_or_time_on_the_path_are_not_cached(name):
    body, why = INGRESS[name]
    source = HEAD + ("control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { "
                     + body + " }\nV1Switch(P(), VC(), I(), E(), CC(), D()) main;\n")
    sw = Switch(compile_source(source).program)
    found = V1Decisions.for_switch(sw.dp, {1: None})
    if why is None:
        assert isinstance(found, V1Decisions)
    else:
        assert isinstance(found, str) and why in found, found


def _ones_sum(header: bytes) -> int:
    """RFC 1071's end-around-carry sum of 16-bit words (the test's own arithmetic)."""
    s = 0
    for i in range(0, len(header), 2):
        s += int.from_bytes(header[i:i + 2], "big")
        s = (s & 0xFFFF) + (s >> 16)
    return s


def _with_ident(data: bytes, ident: int, checksum: int) -> bytes:
    return data[:18] + ident.to_bytes(2, "big") + data[20:24] + checksum.to_bytes(2, "big") + data[26:]


@pytest.mark.parametrize("checksum", [0x0000, 0xFFFF, 0x0001])
def test_a_header_summing_to_0xffff_verifies_as_the_pipeline_says(checksum):
    """The cache's one-sum checksum check (``Shape.fast``) on the edge of ones' complement: an IPv4
    header whose other words sum to 0xFFFF has checksum 0x0000, so 0xFFFF (its other zero) and
    0x0001 are wrong; the cache gives each the pipeline's fate (forwarded or dropped)."""
    sw = ecmp_switch()
    dec = cached(sw)
    base = udp("10.0.1.5")
    fate_by_cache(dec, 2, base)                              # the flow's decision
    assert all(sh.fast is not None for sh in dec.cache.shapes)
    rest = _ones_sum(_with_ident(base, 0, 0)[14:34])
    ident = 0xFFFF - rest                                    # now the words sum to exactly 0xFFFF
    assert _ones_sum(_with_ident(base, ident, 0)[14:34]) == 0xFFFF
    data = _with_ident(base, ident, checksum)
    hits = dec.cache.hits
    assert fate_by_cache(dec, 2, data) == fate_by_pipeline(sw, 2, data)
    assert dec.cache.hits + dec.cache.misses > hits          # it was looked up, not refused
    forwarded = fate_by_pipeline(sw, 2, data)[0]
    assert bool(forwarded) == (checksum == 0x0000)


def test_an_output_header_summing_to_0xffff_leaves_with_checksum_0():
    """A packet whose outgoing IPv4 header (TTL and MACs rewritten) sums to 0xFFFF without its
    checksum leaves with checksum 0x0000 (never 0xFFFF), as the pipeline writes it; its
    neighbours' identifications too."""
    sw = ecmp_switch()
    dec = cached(sw)
    base = udp("10.0.1.5")
    out = fate_by_pipeline(sw, 2, base)[0][0][1]
    ident = 0xFFFF - _ones_sum(_with_ident(out, 0, 0)[14:34])
    fate_by_cache(dec, 2, base)
    for i in (ident - 1, ident, ident + 1):
        header = _with_ident(base, i, 0)[14:34]
        data = _with_ident(base, i, ~_ones_sum(header) & 0xFFFF)
        got = fate_by_cache(dec, 2, data)
        assert got == fate_by_pipeline(sw, 2, data)
        assert (int.from_bytes(got[0][0][1][24:26], "big") == 0) == (i == ident)
    assert dec.cache.hits == 3
