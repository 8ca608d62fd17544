// PSA Hash as psa_switch computes it: the data's fields concatenated with zero bits padding
// the front to a whole byte. Over "123456789" (obs.port, obs.a, obs.cos) CRC32 and CRC16
// give their check values; get_hash(base, data, max) is base + hash % max; TARGET_DEFAULT is
// CRC16 (p4c's BMv2 PSA back end); IDENTITY is the data itself.
#include "psa_common.p4h"

control MyIngress(inout headers_t hdr, inout meta_t meta, in psa_ingress_input_metadata_t istd,
                  inout psa_ingress_output_metadata_t ostd) {
    Hash<bit<32>>(PSA_HashAlgorithm_t.CRC32) crc32;
    Hash<bit<16>>(PSA_HashAlgorithm_t.CRC16) crc16;
    Hash<bit<16>>(PSA_HashAlgorithm_t.TARGET_DEFAULT) dflt;
    Hash<bit<8>>(PSA_HashAlgorithm_t.IDENTITY) ident;
    apply {
        bit<32> c32 = crc32.get_hash({hdr.obs.port, hdr.obs.a, hdr.obs.cos});
        bit<16> c16 = crc16.get_hash({hdr.obs.port, hdr.obs.a, hdr.obs.cos});
        bit<32> m = crc32.get_hash(32w100, {hdr.obs.port, hdr.obs.a, hdr.obs.cos}, 32w1000);
        bit<12> twelve = 0x456;
        bit<16> d = dflt.get_hash(twelve);
        bit<8> i = ident.get_hash({hdr.obs.cos});
        hdr.obs.b = c32;
        hdr.obs.inst = c16;
        hdr.eth.dst = (bit<48>) m;
        hdr.eth.src = (bit<48>) d;
        hdr.obs.path = i;
        send_to_port(ostd, (PortId_t) 2);
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, in psa_egress_input_metadata_t istd,
                 inout psa_egress_output_metadata_t ostd) {
    apply { }
}

IngressPipeline(IngressParserImpl(), MyIngress(), IngressDeparserImpl()) ip;
EgressPipeline(EgressParserImpl(), MyEgress(), EgressDeparserImpl()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
