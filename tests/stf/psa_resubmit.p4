// PSA resubmit: ostd.resubmit (with drop false) sends the packet as received back to ingress,
// before the ingress deparser; psa_switch resets all metadata, so the second pass sees path
// RESUBMIT, ingress_port 0 and none of the first pass's metadata. drop wins over resubmit.
#include "psa_common.p4h"

control MyIngress(inout headers_t hdr, inout meta_t meta, in psa_ingress_input_metadata_t istd,
                  inout psa_ingress_output_metadata_t ostd) {
    apply {
        if (istd.packet_path != PSA_PacketPath_t.RESUBMIT) {
            meta.a = 0x99;                    // lost: metadata is reset
            hdr.eth.src = 0xdead;             // lost: the packet as received goes back
            ostd.resubmit = true;
            if (hdr.obs.cos != 1) {
                ostd.drop = false;
            }
        } else {
            hdr.obs.path = path_code(istd.packet_path);
            hdr.obs.port = (PortIdUint_t) istd.ingress_port;
            hdr.obs.a = meta.a;
            send_to_port(ostd, (PortId_t) 2);
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, in psa_egress_input_metadata_t istd,
                 inout psa_egress_output_metadata_t ostd) {
    apply { }
}

IngressPipeline(IngressParserImpl(), MyIngress(), IngressDeparserImpl()) ip;
EgressPipeline(EgressParserImpl(), MyEgress(), EgressDeparserImpl()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
