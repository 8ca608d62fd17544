// PSA resubmit: ostd.resubmit (with drop false) sends the packet as received back to ingress,
// before the ingress deparser; psa_switch resets all metadata, so the second pass sees path
// RESUBMIT, ingress_port 0 and none of the first pass's metadata. It keeps the headers as the
// first pass left them until the parser extracts again: a header made valid stays valid.
// drop wins over resubmit.
#include "psa_common.p4h"

// Its own ingress parser: CommonParser's `out` parameter would make every header invalid.
parser ResubmitParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                      in psa_ingress_parser_input_metadata_t istd,
                      in empty_t resubmit_meta, in empty_t recirculate_meta) {
    state start {
        pkt.extract(hdr.eth);
        pkt.extract(hdr.obs);
        transition accept;
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, in psa_ingress_input_metadata_t istd,
                  inout psa_ingress_output_metadata_t ostd) {
    apply {
        if (istd.packet_path != PSA_PacketPath_t.RESUBMIT) {
            meta.a = 0x99;                    // lost: metadata is reset
            hdr.eth.src = 0xdead;             // lost: the packet as received goes back (and is parsed again)
            hdr.ipv4.setValid();              // kept: not in the packet, so not extracted again
            hdr.ipv4.ttl = 0x2a;
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

IngressPipeline(ResubmitParser(), MyIngress(), IngressDeparserImpl()) ip;
EgressPipeline(EgressParserImpl(), MyEgress(), EgressDeparserImpl()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
