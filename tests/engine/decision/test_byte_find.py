"""The byte-indexed one-shape lookup (``dataplane.engine.decision.byte_find``, PyPy's form) on what
only it does: bits split within a byte between the key and the carried fields, its own tables
emptied with the cache's, the shapes it leaves to the big-integer form. The rules both forms share
(fates equal to the pipeline's, every table write, the 0xFFFF checksums, unjoined frames) run on
both in tests/arch/test_v1model_decisions.py and test_v1model_unjoined.py."""
from __future__ import annotations

from types import SimpleNamespace

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from dataplane import pypy_jit
from dataplane.arch.v1model_decisions import V1Decisions, field_use
from dataplane.arch.work import CachedEgress
from dataplane.control.switch import Switch
from dataplane.engine.decision import byte_find
from dataplane.resources import builtin_program

LPM = "MyIngress.ipv4_lpm"


@pytest.fixture(autouse=True)
def bytes_form(monkeypatch):
    monkeypatch.setattr(byte_find, "ENABLED", True)


def switch() -> tuple[Switch, V1Decisions]:
    """ecmp_router sending 10.0.1.0/24 out of port 1 (packets come in on port 2), and its cache."""
    sw = Switch.from_file(builtin_program("ecmp_router"))
    sw.table_add(LPM, "set_nhop", ["10.0.1.0/24"], ["0a:00:00:00:01:01", 1])
    return sw, V1Decisions(sw.dp, field_use(sw.dp), {1: None, 2: None})


def packet(flags: int = 0, frag: int = 0, ident: int = 1) -> bytes:
    return bytes(Ether(src="0a:0a:0a:0a:0a:0a", dst="0b:0b:0b:0b:0b:0b") /
                 IP(src="10.0.9.9", dst="10.0.1.5", flags=flags, frag=frag, id=ident) / UDP(sport=7, dport=4791) /
                 (b"y" * 30))


def by_cache(dec: V1Decisions, data: bytes) -> bytes:
    got = dec.decide(2, data)
    assert got.__class__ is CachedEgress and got.port == 1
    return got.out


def by_pipeline(sw: Switch, data: bytes) -> bytes:
    (out,) = sw.dp.process(2, data).outputs
    assert out.port == 1
    return out.data


def test_the_lookup_in_use_is_the_byte_form_where_enabled(monkeypatch):
    """So that the rules run "on both forms" elsewhere really do: the cache's ``find`` after a
    flow's first packet is the code ``byte_find`` wrote, or, turned off, the big-integer closure."""
    for enabled in (True, False):
        monkeypatch.setattr(byte_find, "ENABLED", enabled)
        sw, dec = switch()
        by_cache(dec, packet())
        assert dec.cache.find.__code__.co_filename.startswith("<byte_find") == enabled
        # and PyPy's traces call it (inline, they grew past PyPy's limit and were cut)
        assert (dec.cache.find.__code__ in pypy_jit._not_inlined) == enabled


def test_bits_of_one_byte_split_between_the_key_and_the_carried_fields():
    """IPv4's flags (carried: read by nothing but the checksum) share their byte with the fragment
    offset's top bits (a key field: the program writes it back). Packets differing in the flags alone
    share a decision and each leaves with its own; packets differing in the offset's top bits alone
    (0x0100: only byte 20 differs) each get a decision of their own."""
    sw, dec = switch()
    for flags, frag in ((0, 0), (2, 0), (1, 0), (0, 0x100), (2, 0x100), (0, 0x1F00 >> 3 << 3)):
        data = packet(flags=flags, frag=frag)
        out = by_cache(dec, data)
        assert out == by_pipeline(sw, data), (flags, frag)
        assert (IP(out[14:]).flags, IP(out[14:]).frag) == (flags, frag)
    assert (dec.cache.misses, dec.cache.hits) == (3, 3)


def test_the_second_packet_of_a_flow_is_a_hit_of_the_byte_tables():
    sw, dec = switch()
    by_cache(dec, packet(ident=1))            # the pipeline's decision, stored under its big integer
    by_cache(dec, packet(ident=2))            # found by the big-integer form, kept in the byte tables
    assert sum(map(len, dec.cache._byte_tables)) == 1
    misses = dec.cache.misses
    data = packet(ident=3)
    assert by_cache(dec, data) == by_pipeline(sw, data)
    assert (dec.cache.misses, dec.cache.hits) == (misses, 2)


def test_a_table_write_empties_the_byte_tables():
    """A decision the byte tables still held after a write would send the flow the old way."""
    sw, dec = switch()
    for ident in (1, 2):
        by_cache(dec, packet(ident=ident))
    assert sum(map(len, dec.cache._byte_tables)) == 1
    sw.table_modify(LPM, sw.table_entries(LPM)[0].handle, "set_nhop", ["0a:00:00:00:09:09", 1])
    assert sum(map(len, dec.cache._byte_tables)) == 0
    data = packet(ident=3)
    assert by_cache(dec, data) == by_pipeline(sw, data)
    assert Ether(by_cache(dec, packet(ident=4))).dst == "0a:00:00:00:09:09"


def _shape(**changes):
    """The ecmp_router shape, with ``fast``'s fields or the shape's masks changed."""
    sw, dec = switch()
    by_cache(dec, packet())
    (sh,) = dec.cache.shapes
    fast = dict(zip(("shift", "hmask", "at", "weight", "cshift"), sh.fast))
    fast.update({k: v for k, v in changes.items() if k in fast})
    fields = {name: getattr(sh, name) for name in ("region", "update", "kmask", "pmask", "cmask", "headers")}
    fields.update({k: v for k, v in changes.items() if k in fields})
    return SimpleNamespace(fast=tuple(fast.values()), **fields)


@pytest.mark.parametrize("changes", [
    {}, {"shift": 33}, {"cshift": 72}, {"weight": 2}, {"hmask": (1 << 152) - 1}, {"at": 25},
    {"update": ((92, 0, 0),)}, {"pmask": 0xFFFF << 96},
])
def test_shapes_it_does_not_write_for_are_left_to_the_big_integer_form(changes):
    """Only a header of whole 16-bit words on byte boundaries, the checksum one of them, read and
    written in one place, clear of the carried bits: the unchanged shape is written for, each change
    from it is not (None: the cache keeps the big-integer ``find``)."""
    cache = SimpleNamespace(reads_port=False, reads_length=False, hits=0)
    got = byte_find.byte_find(cache, _shape(**changes), lambda port, data: (None, None), ({}, {}))
    assert (got is not None) == (not changes)


@pytest.mark.parametrize("reads", ["reads_port", "reads_length"])
def test_a_program_reading_the_port_or_length_is_left_to_the_big_integer_form(reads):
    cache = SimpleNamespace(reads_port=False, reads_length=False, hits=0)
    setattr(cache, reads, True)
    assert byte_find.byte_find(cache, _shape(), lambda port, data: (None, None), ({}, {})) is None
