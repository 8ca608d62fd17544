// Parser errors in PSA: a parser error stops the parser and the packet goes on; ingress and
// egress read it in istd.parser_error. A truncated obs header is PacketTooShort in the
// ingress parser (obs is not extracted; the bytes stay in the payload) and again in the
// egress parser, which parses what the ingress deparser emitted.
#include "psa_common.p4h"

control MyIngress(inout headers_t hdr, inout meta_t meta, in psa_ingress_input_metadata_t istd,
                  inout psa_ingress_output_metadata_t ostd) {
    apply {
        if (istd.parser_error == error.PacketTooShort) {
            hdr.eth.dst = 0x1111;
        } else if (istd.parser_error == error.NoError) {
            hdr.eth.dst = 0x0000;
        }
        send_to_port(ostd, (PortId_t) 2);
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, in psa_egress_input_metadata_t istd,
                 inout psa_egress_output_metadata_t ostd) {
    apply {
        if (istd.parser_error == error.PacketTooShort) {
            hdr.eth.src = 0x2222;
        }
    }
}

IngressPipeline(IngressParserImpl(), MyIngress(), IngressDeparserImpl()) ip;
EgressPipeline(EgressParserImpl(), MyEgress(), EgressDeparserImpl()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
