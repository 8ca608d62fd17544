// PSA egress-to-egress clones: ostd.clone in egress copies the packet as the egress deparser
// emitted it (so egress's changes are in the copy), to the session's port, even when the
// original is dropped; the copy goes through egress again with path CLONE_E2E and all
// metadata zero.
#include "psa_common.p4h"

control MyIngress(inout headers_t hdr, inout meta_t meta, in psa_ingress_input_metadata_t istd,
                  inout psa_ingress_output_metadata_t ostd) {
    apply {
        meta.a = 0x1234;
        send_to_port(ostd, (PortId_t) hdr.obs.port);
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, in psa_egress_input_metadata_t istd,
                 inout psa_egress_output_metadata_t ostd) {
    apply {
        hdr.obs.path = path_code(istd.packet_path);
        hdr.obs.port = (PortIdUint_t) istd.egress_port;
        hdr.obs.a = meta.a;
        if (istd.packet_path == PSA_PacketPath_t.NORMAL_UNICAST) {
            hdr.obs.b = 0xbeef;
            ostd.clone = true;
            ostd.clone_session_id = (CloneSessionId_t) 5;
            if (hdr.obs.cos == 1) {
                egress_drop(ostd);
            }
        }
    }
}

IngressPipeline(IngressParserImpl(), MyIngress(), IngressDeparserImpl()) ip;
EgressPipeline(EgressParserImpl(), MyEgress(), EgressDeparserImpl()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
