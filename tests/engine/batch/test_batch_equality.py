"""Equality is the batch engine's contract: the same outputs, drops and counters as the
per-packet engine, byte for byte, on every built-in program and STF test it accepts (the
accepted sets are listed, so a silent fall-back fails), and on random tables and packets."""
from __future__ import annotations

import random

from dataplane.control.switch import Switch
from dataplane.ir.node import annotation


def random_entries(sw: Switch, rng: random.Random, per_table: int) -> None:
    """Add up to ``per_table`` random entries to every table (duplicates skipped)."""
    for _name, t in sw.table_names().items():
        if t.table.entries_const or t.selector_fields:
            continue
        actions = [a for a in t.table.actions if not annotation(a.annotations, "defaultonly")]
        if not actions:
            continue
        for _ in range(per_table):
            key = [_key(kind, w, rng) for kind, w in t.key_layout]
            ref = rng.choice(actions)
            _, act = sw._action(t, ref.action)
            params = [rng.getrandbits(_width(p)) for p in act.data_params]
            prio = rng.randint(1, 4) if t.match.uses_priority else None
            try:
                sw.table_add(t.qualified_name, ref.action, key, params, priority=prio)
            except Exception:   # a duplicate key: the tables keep the first
                pass


def _width(p) -> int:
    from dataplane.ir import types as T
    t = T.strip_newtype(p.type)
    return 1 if isinstance(t, T.Bool) else t.bit_width()


def _key(kind: str, w: int, rng: random.Random):
    v = _interesting(w, rng)
    if kind == "exact":
        return v
    if kind == "lpm":
        plen = rng.randint(0, w)
        return (v, plen)
    if kind == "ternary":
        return (v, rng.choice([0, (1 << w) - 1, rng.getrandbits(w), ((1 << w) - 1) ^ ((1 << (w // 2)) - 1)]))
    if kind == "optional":
        return None if rng.random() < 0.3 else v
    lo = _interesting(w, rng)
    hi = _interesting(w, rng)
    return (min(lo, hi), max(lo, hi))


def _interesting(w: int, rng: random.Random) -> int:
    return rng.choice([0, 1, (1 << w) - 1, rng.getrandbits(w), rng.getrandbits(min(w, 4)), 0x0A000000 & ((1 << w) - 1)])


def ipv4_checksum(header: bytes) -> int:
    total = sum(int.from_bytes(header[i:i + 2], "big") for i in range(0, len(header), 2))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def random_packet(rng: random.Random, addresses: list[int] = ()) -> bytes:
    """Ethernet, usually IPv4 (right or wrong checksum, any protocol, a fragment now and then),
    two port fields, a payload; sometimes cut short anywhere."""
    ether_type = rng.choice([0x0800, 0x0800, 0x0800, 0x86DD, 0x8100, rng.getrandbits(16)])
    eth = rng.getrandbits(96).to_bytes(12, "big") + ether_type.to_bytes(2, "big")
    dst = rng.choice(list(addresses)) if addresses and rng.random() < 0.7 else rng.getrandbits(32)
    ip = bytearray(20)
    ip[0] = rng.choice([0x45, 0x45, rng.getrandbits(8)])
    ip[1] = rng.getrandbits(8)
    ip[2:4] = rng.randint(20, 1500).to_bytes(2, "big")
    ip[4:6] = rng.getrandbits(16).to_bytes(2, "big")
    ip[6:8] = rng.choice([0, 0, 0x4000, rng.getrandbits(16)]).to_bytes(2, "big")
    ip[8] = rng.choice([0, 1, 2, 3, 64, 255])
    ip[9] = rng.choice([6, 17, 1, rng.getrandbits(8)])
    ip[12:16] = rng.getrandbits(32).to_bytes(4, "big")
    ip[16:20] = dst.to_bytes(4, "big")
    ck = ipv4_checksum(bytes(ip)) if rng.random() < 0.8 else rng.getrandbits(16)
    ip[10:12] = ck.to_bytes(2, "big")
    l4 = rng.getrandbits(32).to_bytes(4, "big")
    data = eth + bytes(ip) + l4 + bytes(rng.randint(0, 40))
    if rng.random() < 0.1:
        data = data[:rng.randint(0, len(data))]
    return data


def state(sw: Switch) -> tuple:
    """Every counter cell and every entry's direct counter, in a comparable form."""
    totals = {q: (list(o.packets), list(o.bytes)) for q, o in sw.dp.instances.items() if hasattr(o, "packets")}
    direct = {q: [(e.value.packets, e.value.bytes) for e in t.match.entries()] for q, t in sw.dp.tables.items()}
    return totals, direct


def assert_same(program, setup, packets: list[bytes], ports: list[int]) -> None:
    """Both engines on fresh switches of ``program`` after ``setup(switch)``: same results, same counters."""
    a, b = Switch(program), Switch(program)
    setup(a)
    setup(b)
    got = a.process_batch(packets, ports, engine="batch")
    want = [b.process(p, d) for p, d in zip(ports, packets)]
    for i, (g, w) in enumerate(zip(got, want)):
        assert g == w, f"packet {i} ({packets[i].hex()} on port {ports[i]}): batch {g} != per-packet {w}"
    assert len(got) == len(want)
    assert state(a) == state(b)


# ---- the tests ------------------------------------------------------------------------------------------
import glob
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dataplane.engine.batch import BatchUnsupported
from dataplane.engine.batch.select import batch_pipeline
from dataplane.lang.frontend import compile_file

ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent

# Built-in programs the batch engine runs; the others must be refused with a located reason.
BUILTIN_ACCEPTED = {"ecmp_router", "flat_fib", "ipv4_router"}
STF_ACCEPTED = """arch_action_run arch_const_entries arch_default_actions arch_drop_egress arch_drop_ingress
    arch_exact arch_exit arch_lpm arch_multicast arch_multicast_prune arch_std_metadata arch_ternary
    ipv4_router lang_actions lang_bit_wrap lang_bitops lang_casts lang_compound lang_concat
    lang_const_entries lang_entry_priority lang_enum lang_exit_copy_out lang_function_headers
    lang_functions lang_generic_struct lang_hash lang_int_signed lang_key_applies_table
    lang_metadata lang_plus_slice lang_saturating lang_select lang_select_nomatch lang_shifts
    lang_short_circuit lang_slices lang_state_locals lang_switch lang_type_names lang_validity
    lang_wide subblock_copy subblock_direct subblock_parser""".split()


def _program(path):
    return compile_file(str(path)).program


@pytest.mark.parametrize("path", sorted(glob.glob(str(ROOT / "programs" / "*.p4"))), ids=lambda p: Path(p).stem)
def test_builtin_program_same_on_both_engines(path):
    name = Path(path).stem
    program = _program(path)
    if name not in BUILTIN_ACCEPTED:
        with pytest.raises(BatchUnsupported, match=r"\.p4h?(:\d+:\d+)?: "):
            batch_pipeline(Switch(program).dp)
        return
    config = Path(path).with_suffix(".json")
    rng = random.Random(name)

    def setup(sw):
        if config.is_file():
            from dataplane.control.loader import load_entries
            load_entries(sw, config)
        random_entries(sw, random.Random(name), 20)

    probe = Switch(program)
    setup(probe)
    addresses = [e.key[0][0] | rng.getrandbits(8) for t in probe.table_names().values()
                 for e in t.match.entries() if e.key and isinstance(e.key[0], tuple)]
    packets = [random_packet(rng, addresses) for _ in range(300)]
    ports = [rng.randrange(8) for _ in packets]
    assert_same(program, setup, packets, ports)


@pytest.mark.parametrize("name", STF_ACCEPTED)
def test_stf_same_verdict_and_outputs_on_both_engines(name):
    from dataplane.testing.stf import load_stf
    from dataplane.testing.stf_runner import run_stf

    p4, stf = ROOT / "tests" / "stf" / f"{name}.p4", ROOT / "tests" / "stf" / f"{name}.stf"
    program = _program(p4)
    a, b = Switch(program), Switch(program)
    batch_pipeline(a.dp)    # accepted: a refusal here is a regression
    r1 = run_stf(a, load_stf(str(stf)), str(stf), engine="batch")
    r2 = run_stf(b, load_stf(str(stf)), str(stf), engine="packet")
    assert (r1.passed, r1.outputs, r1.failures) == (r2.passed, r2.outputs, r2.failures)
    assert r1.passed
    assert state(a) == state(b)


_ROUTER = None
_ACL = None


def _router():
    global _ROUTER
    if _ROUTER is None:
        from dataplane.resources import builtin_program
        _ROUTER = _program(builtin_program("ipv4_router"))
    return _ROUTER


def _acl():
    global _ACL
    if _ACL is None:
        _ACL = _program(HERE / "acl.p4")
    return _ACL


_FUZZ = settings(max_examples=15, deadline=None, derandomize=True,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@_FUZZ
@given(seed=st.integers(0, 2 ** 32 - 1), routes=st.integers(0, 60), packets=st.integers(1, 120))
def test_router_fuzz_same_on_both_engines(seed, routes, packets):
    rng = random.Random(seed)
    table = [(rng.getrandbits(32), rng.randint(0, 32), rng.getrandbits(48), rng.randrange(512))
             for _ in range(routes)]

    def setup(sw):
        for prefix, plen, mac, port in table:
            action = "drop" if port >= 500 else "ipv4_forward"
            try:
                sw.table_add("ipv4_lpm", action, [(prefix >> (32 - plen) << (32 - plen) if plen else 0, plen)],
                             [] if action == "drop" else [mac, port])
            except Exception:
                pass
    addresses = [p | rng.getrandbits(32 - n) if n < 32 else p for p, n, _, _ in table]
    pkts = [random_packet(rng, addresses) for _ in range(packets)]
    assert_same(_router(), setup, pkts, [rng.randrange(16) for _ in pkts])


@_FUZZ
@given(seed=st.integers(0, 2 ** 32 - 1), entries=st.integers(0, 40), packets=st.integers(1, 120))
def test_ternary_range_fuzz_same_on_both_engines(seed, entries, packets):
    rng = random.Random(seed)

    def setup(sw):
        random_entries(sw, random.Random(seed), entries)
    probe = Switch(_acl())
    setup(probe)
    addresses = [e.key[1][0] | rng.getrandbits(4) for e in probe.table("acl").match.entries()]
    pkts = [random_packet(rng, addresses) for _ in range(packets)]
    assert_same(_acl(), setup, pkts, [rng.randrange(8) for _ in pkts])


def test_refusal_names_the_construct_and_its_location(tmp_path):
    src = (HERE / "acl.p4").read_text().replace("direct_counter(CounterType.packets_and_bytes) acl_hits;",
                                                "direct_counter(CounterType.packets_and_bytes) acl_hits;\n"
                                                "    register<bit<32>>(4) seen;")
    src = src.replace("by_class.count((bit<32>) meta.cls[3:0]);", "seen.write(0, 1);")
    p = tmp_path / "reg.p4"
    p.write_text(src)
    sw = Switch(_program(p))
    with pytest.raises(BatchUnsupported, match=r"reg\.p4:\d+:\d+: extern method Register\.write\(\)"):
        sw.process_batch([bytes(60)], engine="batch")
    # auto falls back to the per-packet engine, quietly, with the same results
    assert sw.process_batch([bytes(60)], engine="auto") == [sw.process(0, bytes(60))]


def test_tables_edited_between_batches_are_seen():
    program = _router()
    a = Switch(program)
    pkt = random_packet(random.Random(3), [0x0A000001])
    while len(pkt) < 34 or pkt[12:14] != b"\x08\x00":
        pkt = random_packet(random.Random(len(pkt) + 7), [0x0A000001])
    first = a.process_batch([pkt], engine="batch")[0]
    h = a.table_add("ipv4_lpm", "ipv4_forward", [(int.from_bytes(pkt[30:34], "big"), 32)], [0xAA, 5])
    second = a.process_batch([pkt], engine="batch")[0]
    a.table_modify("ipv4_lpm", h, "ipv4_forward", [0xBB, 6])
    third = a.process_batch([pkt], engine="batch")[0]
    a.table_delete("ipv4_lpm", h)
    fourth = a.process_batch([pkt], engine="batch")[0]
    assert [r.outputs[0].port if r.outputs else None for r in (first, second, third, fourth)] == [None, 5, 6, None]


@_FUZZ
@given(seed=st.integers(0, 2 ** 32 - 1), packets=st.integers(1, 80))
def test_multicast_fuzz_same_on_both_engines(seed, packets):
    """Replicas in the replication engine's order (nodes, then ports ascending), egress per copy
    (egress_rid, instance_type), empty groups and groups nobody configured."""
    rng = random.Random(seed)
    program = _program(ROOT / "tests" / "programs" / "multicast.p4")
    groups = {g: [(rng.randrange(4), sorted(rng.sample(range(8), rng.randint(0, 3)))) for _ in range(rng.randint(0, 3))]
              for g in (1, 2, 3)}

    def setup(sw):
        for g, nodes in groups.items():
            sw.mc_group_create(g)
            for rid, ports in nodes:
                sw.mc_node_add(g, rid, ports)
        random_entries(sw, random.Random(seed), 10)
    pkts = [random_packet(rng) for _ in range(packets)]
    assert_same(program, setup, pkts, [rng.randrange(8) for _ in pkts])


def _ipv4_frame(rng: random.Random, protocol: int, ttl: int, payload: int) -> bytes:
    ip = bytearray(rng.getrandbits(160).to_bytes(20, "big"))
    ip[0], ip[8], ip[9] = 0x45, ttl, protocol
    return rng.getrandbits(96).to_bytes(12, "big") + b"\x08\x00" + bytes(ip) + bytes(rng.getrandbits(8) for _ in range(payload))


@pytest.mark.parametrize("case", ["one layout", "mixed", "mixed lengths"])
def test_in_place_rewrites_and_their_fallbacks_same_on_both_engines(case):
    """One layout: every packet parsed the same way and kept in place (fields read from the
    bytes when used, assigned ones written back). Mixed: in the same batch, packets that lose
    their IPv4 header or gain a tag (packed), are dropped (TTL 1), or are not IPv4."""
    rng = random.Random(case)
    program = _program(HERE / "rewrite.p4")
    if case == "one layout":
        packets = [_ipv4_frame(rng, 17, rng.randint(2, 255), 26) for _ in range(64)]
    else:
        packets = [_ipv4_frame(rng, rng.choice([6, 17, 50, 51]), rng.choice([1, 2, 64]),
                               26 if case == "mixed" else rng.randint(0, 40)) for _ in range(64)]
        packets += [rng.getrandbits(96).to_bytes(12, "big") + b"\x86\xdd" + bytes(50), b"\x00" * 20]
    assert_same(program, lambda sw: None, packets, [0] * len(packets))
    from dataplane.engine.batch.layout import PacketBatch
    batch = PacketBatch.from_packets(packets)
    want = [bytes(o) for o in batch_pipeline(Switch(program).dp).run(batch).data]
    ((_, out),) = batch_pipeline(Switch(program).dp).run_chunks(batch, scratch=True)
    # one layout: every output written over its input (the in-place path); else some were not
    assert out.in_place == (case == "one layout")
    assert [bytes(o) for o in out.data] == want
