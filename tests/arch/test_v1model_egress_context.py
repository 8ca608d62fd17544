"""A unicast packet's egress pass reuses its ingress context, reset as a fresh one would be.

Requests made in ingress that only egress acts on (an egress-to-egress clone, a
recirculation) must not carry into egress, a truncate() must, and egress sees its own
time; a multicast copy still gets a context of its own (no ingress truncate).
"""
from __future__ import annotations

from dataplane.arch.v1model import PacketResult
from dataplane.arch.work import IngressWork
from dataplane.control.switch import Switch
from dataplane.lang.frontend import compile_source

SOURCE = """
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> mode; bit<8> clone_in_egress; bit<32> t_in; bit<32> t_eg; }
struct headers { h_t h; }
struct metadata { }
parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hdr.h.t_in = (bit<32>)sm.ingress_global_timestamp;
        clone(CloneType.E2E, 5);
        recirculate_preserving_field_list(0);
        truncate(12);
        if (hdr.h.mode == 1) { sm.mcast_grp = 1; } else { sm.egress_spec = 2; }
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hdr.h.t_eg = (bit<32>)sm.egress_global_timestamp;
        if (hdr.h.clone_in_egress == 1 && sm.instance_type == 0) { clone(CloneType.E2E, 5); }
    }
}
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def make() -> Switch:
    sw = Switch(compile_source(SOURCE).program)
    sw.clone_session_add(5, 7)
    sw.dp.multicast_groups[1] = [(0, [3, 4])]
    return sw


def test_unicast_egress_starts_afresh_but_keeps_truncate():
    sw = make()
    data = bytes([0, 0]) + bytes(8) + b"payload"
    result = sw.dp.process(1, data)
    assert [(o.port, len(o.data)) for o in result.outputs] == [(2, 12)]  # no clone, no recirculation
    assert result.drops == []


def test_an_egress_clone_still_works_and_egress_time_is_its_own():
    sw = make()
    result = PacketResult()
    sw.dp.now_us = 1000
    work = sw.dp.run_work(IngressWork(1, bytes([0, 1]) + bytes(8)), result)
    sw.dp.now_us = 2500
    while work:
        work.extend(sw.dp.run_work(work.pop(0), result))
    assert sorted(o.port for o in result.outputs) == [2, 7]
    out = next(o for o in result.outputs if o.port == 2).data
    assert int.from_bytes(out[2:6], "big") == 1000 and int.from_bytes(out[6:10], "big") == 2500


def test_multicast_copies_do_not_inherit_the_ingress_truncate():
    sw = make()
    result = sw.dp.process(1, bytes([1, 0]) + bytes(8) + b"payload")
    assert sorted((o.port, len(o.data)) for o in result.outputs) == [(3, 17), (4, 17)]
