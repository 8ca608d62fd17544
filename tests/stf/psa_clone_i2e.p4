// PSA ingress-to-egress clones: ostd.clone with a session makes a copy of the packet as it
// entered the ingress parser, to the session's port or each replica of its multicast group,
// made even when the original is dropped. The copy's metadata starts at zero, its path is
// CLONE_I2E, its instance the replica's rid (0 for a port session). An unconfigured
// session makes no copy.
#include "psa_common.p4h"

control MyIngress(inout headers_t hdr, inout meta_t meta, in psa_ingress_input_metadata_t istd,
                  inout psa_ingress_output_metadata_t ostd) {
    apply {
        ostd.clone = true;
        ostd.clone_session_id = (CloneSessionId_t) hdr.obs.a[15:0];
        meta.a = 0x1234;
        hdr.eth.src = 0xcafe;                 // the original's change; a clone has the bytes as received
        if (hdr.obs.cos == 1) {
            ingress_drop(ostd);
        } else {
            send_to_port(ostd, (PortId_t) hdr.obs.port);
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, in psa_egress_input_metadata_t istd,
                 inout psa_egress_output_metadata_t ostd) {
    apply {
        hdr.obs.path = path_code(istd.packet_path);
        hdr.obs.inst = (EgressInstanceUint_t) istd.instance;
        hdr.obs.port = (PortIdUint_t) istd.egress_port;
        hdr.obs.b = meta.a;
    }
}

IngressPipeline(IngressParserImpl(), MyIngress(), IngressDeparserImpl()) ip;
EgressPipeline(EgressParserImpl(), MyEgress(), EgressDeparserImpl()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
