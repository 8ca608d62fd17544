// PSA checksums. The ingress parser checks the IPv4 header checksum with InternetChecksum
// (a bad one is a parser error: verify); ingress decrements the TTL and updates the checksum
// incrementally (RFC 1624: subtract the old checksum and word, add the new word); a packet
// with a bad checksum is marked and the ingress deparser recomputes its checksum in full.
// get_state/set_state expose the running sum. Checksum<W> (CRC16): psa_switch hashes the
// data of the last update() (it does not accumulate), as a number in its fewest bytes.
#include "psa_common.p4h"

error { BadChecksum }

parser CheckingParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                      in psa_ingress_parser_input_metadata_t istd,
                      in empty_t resubmit_meta, in empty_t recirculate_meta) {
    CommonParser() common;
    InternetChecksum() ck;
    state start {
        common.apply(pkt, hdr);
        transition select(hdr.ipv4.isValid()) {
            true: check;
            default: accept;
        }
    }
    state check {
        ck.clear();
        ck.add({hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.totalLen,
                hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.fragOffset,
                hdr.ipv4.ttl, hdr.ipv4.protocol, hdr.ipv4.srcAddr, hdr.ipv4.dstAddr});
        verify(ck.get() == hdr.ipv4.hdrChecksum, error.BadChecksum);
        transition accept;
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, in psa_ingress_input_metadata_t istd,
                  inout psa_ingress_output_metadata_t ostd) {
    InternetChecksum() inc;
    InternetChecksum() st;
    Checksum<bit<16>>(PSA_HashAlgorithm_t.CRC16) crc;
    apply {
        send_to_port(ostd, (PortId_t) 2);
        if (istd.parser_error == error.BadChecksum) {
            hdr.eth.dst = 0xbad;
            return;
        }
        inc.clear();
        inc.subtract({hdr.ipv4.hdrChecksum});
        inc.subtract({hdr.ipv4.ttl, hdr.ipv4.protocol});
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
        inc.add({hdr.ipv4.ttl, hdr.ipv4.protocol});
        hdr.ipv4.hdrChecksum = inc.get();

        st.set_state(0xfffe);
        st.add({16w1});
        crc.update({32w0xffffffff});
        crc.update({8w0, 32w0x31323334, 32w0x35363738, 8w0x39});   // "\0123456789"
        hdr.eth.src = st.get_state() ++ st.get() ++ crc.get();
    }
}

control ChecksummingDeparser(packet_out pkt, out empty_t clone_i2e_meta, out empty_t resubmit_meta,
                             out empty_t normal_meta, inout headers_t hdr, in meta_t meta,
                             in psa_ingress_output_metadata_t istd) {
    InternetChecksum() full;
    apply {
        if (hdr.eth.dst == 0xbad) {
            full.clear();
            full.add({hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.totalLen,
                      hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.fragOffset,
                      hdr.ipv4.ttl, hdr.ipv4.protocol, hdr.ipv4.srcAddr, hdr.ipv4.dstAddr});
            hdr.ipv4.hdrChecksum = full.get();
        }
        pkt.emit(hdr.eth);
        pkt.emit(hdr.ipv4);
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, in psa_egress_input_metadata_t istd,
                 inout psa_egress_output_metadata_t ostd) {
    apply { }
}

IngressPipeline(CheckingParser(), MyIngress(), ChecksummingDeparser()) ip;
EgressPipeline(EgressParserImpl(), MyEgress(), EgressDeparserImpl()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
