"""What v1model's resubmit, recirculate and clones carry into the new packet (BMv2
simple_switch):

* ``*_preserving_field_list(index)`` keeps the user metadata fields annotated
  ``@field_list(index)``, for every index the annotation names, 0 included; all other
  metadata starts at 0;
* every copy a clone session makes (one port, or each replica of its multicast group) has
  the original's ``packet_length`` (simple_switch sets the length register of each copy).
"""
from __future__ import annotations

import pytest

from dataplane.control.switch import Switch
from dataplane.lang.frontend import compile_source

RESUBMIT, RECIRC, I2E, E2E, CLONE_SESSION, GROUP = 1, 2, 3, 4, 5, 9
INSTANCE = {"normal": 0, "ingress_clone": 1, "egress_clone": 2, "recirc": 4, "resubmit": 6}

SOURCE = """
#include <core.p4>
#include <v1model.p4>
header obs_t { bit<8> op; bit<8> kept; bit<8> lost; bit<8> ig_type; bit<8> eg_type; bit<24> pad; bit<32> plen; }
struct headers { obs_t obs; }
struct metadata {
    @field_list(0) bit<8> kept;
    bit<8> lost;
}
parser P(packet_in pk, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.obs); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.obs.ig_type = (bit<8>) sm.instance_type;
        if (sm.instance_type == 0) {
            meta.kept = 0xAA;
            meta.lost = 0xBB;
            if (hdr.obs.op == 1) { resubmit_preserving_field_list(0); }
            if (hdr.obs.op == 3) { clone_preserving_field_list(CloneType.I2E, 5, 0); }
        }
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        // recirculate is egress-only (v1model.p4); a recirculated packet enters egress as NORMAL
        if (hdr.obs.ig_type == 0 && hdr.obs.op == 2) { recirculate_preserving_field_list(0); }
        if (sm.instance_type == 0 && hdr.obs.op == 4) { clone_preserving_field_list(CloneType.E2E, 5, 0); }
        hdr.obs.kept = meta.kept;
        hdr.obs.lost = meta.lost;
        hdr.obs.eg_type = (bit<8>) sm.instance_type;
        hdr.obs.plen = sm.packet_length;
    }
}
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.obs); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


@pytest.fixture(scope="module")
def program():
    return compile_source(SOURCE, "preserved.p4").program


def observed(result) -> list[tuple[int, int, int, int, int, int]]:
    """(port, kept, lost, ingress's instance type, egress's, packet_length) of each output, sorted."""
    out = [(o.port, *o.data[1:5], int.from_bytes(o.data[8:12], "big")) for o in result.outputs]
    return sorted(out)


def packet(op: int) -> bytes:
    """A 60-byte packet: the 12-byte obs header, then zeros."""
    return bytes([op]) + bytes(59)


@pytest.mark.parametrize("op, itype", [(RESUBMIT, "resubmit"), (RECIRC, "recirc")])
def test_field_list_0_survives_resubmit_and_recirculate(program, op, itype):
    """The packet that comes back (ingress sees its instance type) keeps meta.kept
    (@field_list(0)) and has meta.lost reset; only that packet leaves."""
    sw = Switch(program)
    got = observed(sw.process(0, packet(op)))
    assert [g[:5] for g in got] == [(1, 0xAA, 0, INSTANCE[itype], INSTANCE["normal"])]


@pytest.mark.parametrize("op, itype", [(I2E, "ingress_clone"), (E2E, "egress_clone")])
def test_field_list_0_survives_a_clone(program, op, itype):
    """The original leaves port 1 with both fields; its clone (port 4) keeps only meta.kept."""
    sw = Switch(program)
    sw.clone_session_add(CLONE_SESSION, 4)
    got = observed(sw.process(0, packet(op)))
    assert [(g[0], g[1], g[2], g[4]) for g in got] == [(1, 0xAA, 0xBB, INSTANCE["normal"]),
                                                       (4, 0xAA, 0, INSTANCE[itype])]


@pytest.mark.parametrize("op, itype", [(I2E, "ingress_clone"), (E2E, "egress_clone")])
def test_every_replica_of_a_clone_session_keeps_packet_length(program, op, itype):
    """A session cloning to a multicast group of three ports (two nodes): each of the three
    copies reads the original's 60-byte packet_length, as the original does."""
    sw = Switch(program)
    sw.mc_group_create(GROUP)
    sw.mc_node_add(GROUP, 1, [2, 3])
    sw.mc_node_add(GROUP, 2, [6])
    sw.clone_session_add_mc(CLONE_SESSION, GROUP)
    got = observed(sw.process(0, packet(op)))
    assert [(g[0], g[4], g[5]) for g in got] == \
        [(1, INSTANCE["normal"], 60)] + [(p, INSTANCE[itype], 60) for p in (2, 3, 6)]
