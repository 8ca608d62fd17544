"""What a program reads: each header field of the built-in ECMP router sorted into key,
checksum and carried as its source says (programs/ecmp_router.p4), and programs the cache
cannot stand in for refused with the reason."""
from __future__ import annotations

from dataplane.arch.v1model_decisions import field_use
from dataplane.control.switch import Switch
from dataplane.resources import builtin_program


def test_the_ecmp_routers_fields_by_use():
    use = field_use(Switch.from_file(builtin_program("ecmp_router")).dp)
    assert not isinstance(use, str), use
    kinds = {(h, f.name): use.field_kind(h, f.name) for h, layout in use.headers.items() for f in layout.fields}
    # read: the parser's selects, the LPM key, the TTL test, the ECMP hash; written: MACs, TTL
    key = {("ethernet", "etherType"), ("ethernet", "dstAddr"), ("ethernet", "srcAddr"),
           ("ipv4", "ihl"), ("ipv4", "fragOffset"), ("ipv4", "protocol"), ("ipv4", "ttl"),
           ("ipv4", "srcAddr"), ("ipv4", "dstAddr"), ("l4", "srcPort"), ("l4", "dstPort")}
    assert {f for f, k in kinds.items() if k == "key"} == key
    assert {f for f, k in kinds.items() if k == "checksum"} == {("ipv4", "hdrChecksum")}
    assert {f for f, k in kinds.items() if k == "carried"} == {
        ("ipv4", "version"), ("ipv4", "diffserv"), ("ipv4", "totalLen"), ("ipv4", "identification"),
        ("ipv4", "flags")}
    assert use.verify == [("ipv4", "hdrChecksum")] and use.update == [("ipv4", "hdrChecksum")]
    assert use.emits == ["ethernet", "ipv4", "l4"]
    assert "ingress_port" not in use.metadata_reads


def test_programs_with_state_are_refused_with_the_reason():
    for name, why in [("allreduce", "extern instances"), ("ecn", "extern instances"),
                      ("source_routing", "not a plain header")]:
        use = field_use(Switch.from_file(builtin_program(name)).dp)
        assert isinstance(use, str) and why in use, (name, use)
