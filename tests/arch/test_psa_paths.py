"""PSA packet paths at the end of ingress (PSA 1.2 section 6.2, as psa_switch runs it):

* ``drop`` is looked at before ``resubmit``: a packet with both set is dropped, and no
  second pass runs;
* each copy a multicast group makes carries the class of service ingress chose, as unicast
  does (egress reads it in ``istd.class_of_service``).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from dataplane.control.switch import Switch
from dataplane.lang.frontend import compile_source

STF = Path(__file__).parents[1] / "stf"     # psa_common.p4h: the obs header, parsers, deparsers

PROGRAM = """#include "psa_common.p4h"
control MyIngress(inout headers_t hdr, inout meta_t meta, in psa_ingress_input_metadata_t istd,
                  inout psa_ingress_output_metadata_t ostd) {
    apply {
        hdr.obs.b = hdr.obs.b + 1;            // 1 when it leaves: a resubmitted packet is parsed again
        if (istd.packet_path == PSA_PacketPath_t.RESUBMIT) {
            hdr.obs.path = 5;
            send_to_port(ostd, (PortId_t) 2);
        } else if (hdr.obs.path == 1) {       // resubmit, drop as the packet says
            ostd.resubmit = true;
            ostd.drop = hdr.obs.a == 1;
        } else {                              // multicast to group 1 with class of service obs.cos
            multicast(ostd, (MulticastGroup_t) 1);
            ostd.class_of_service = (ClassOfService_t) hdr.obs.cos;
        }
    }
}
control MyEgress(inout headers_t hdr, inout meta_t meta, in psa_egress_input_metadata_t istd,
                 inout psa_egress_output_metadata_t ostd) {
    apply {
        hdr.obs.cos = (ClassOfServiceUint_t) istd.class_of_service;
        hdr.obs.port = (PortIdUint_t) istd.egress_port;
    }
}
IngressPipeline(IngressParserImpl(), MyIngress(), IngressDeparserImpl()) ip;
EgressPipeline(EgressParserImpl(), MyEgress(), EgressDeparserImpl()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
"""


@pytest.fixture(scope="module")
def program():
    return compile_source(PROGRAM, str(STF / "psa_paths.p4")).program


def obs(path: int, cos: int = 0, a: int = 0) -> bytes:
    """Ethernet (etherType 0x88B5) and psa_common's obs header: path cos inst(2) port(4) a(4) b(4)."""
    return (bytes.fromhex("000000000002" "000000000001" "88b5") + bytes([path, cos]) + bytes(2) + bytes(4)
            + a.to_bytes(4, "big") + bytes(4))


def seen(data: bytes) -> tuple[int, int, int, int]:
    """(path, class of service, egress port, b) written into a packet that left."""
    o = data[14:30]
    return o[0], o[1], int.from_bytes(o[4:8], "big"), int.from_bytes(o[12:16], "big")


def test_resubmit_with_drop_set_drops_the_packet(program):
    """resubmit and drop both true: dropped after one ingress pass, nothing leaves. With drop
    false the same packet is resubmitted once and leaves port 2 after its second pass."""
    sw = Switch(program)
    dropped = sw.process(1, obs(path=1, a=1))
    assert dropped.outputs == [] and dropped.drops == ["dropped in ingress (ostd.drop)"]
    resubmitted = sw.process(1, obs(path=1, a=0))
    assert [(o.port, seen(o.data)) for o in resubmitted.outputs] == [(2, (5, 0, 2, 1))]
    assert resubmitted.drops == []


@pytest.mark.parametrize("cos", [1, 6, 7])
def test_every_multicast_copy_keeps_the_class_of_service(program, cos):
    """Group 1: ports 2 and 3 (rid 10) and port 4 (rid 11); each copy reads ``cos``."""
    sw = Switch(program)
    sw.mc_group_create(1)
    sw.mc_node_add(1, 10, [2, 3])
    sw.mc_node_add(1, 11, [4])
    out = sorted((o.port, seen(o.data)[1]) for o in sw.process(1, obs(path=0, cos=cos)).outputs)
    assert out == [(2, cos), (3, cos), (4, cos)]
