/* psa_router.p4 with class_of_service from the IP precedence (tests/net/devices/test_tclass.py). */
#include <core.p4>
#include <bmv2/psa.p4>

const bit<16> TYPE_IPV4 = 0x800;

typedef bit<48> macAddr_t;
typedef bit<32> ip4Addr_t;

header ethernet_t {
    macAddr_t dstAddr;
    macAddr_t srcAddr;
    bit<16>   etherType;
}

header ipv4_t {
    bit<4>    version;
    bit<4>    ihl;
    bit<8>    diffserv;
    bit<16>   totalLen;
    bit<16>   identification;
    bit<3>    flags;
    bit<13>   fragOffset;
    bit<8>    ttl;
    bit<8>    protocol;
    bit<16>   hdrChecksum;
    ip4Addr_t srcAddr;
    ip4Addr_t dstAddr;
}

error { BadIPv4HeaderChecksum }

struct headers {
    ethernet_t ethernet;
    ipv4_t     ipv4;
}

struct metadata {
    /* empty */
}

/************************* I N G R E S S *************************/

parser MyIngressParser(packet_in packet,
                       out headers hdr,
                       inout metadata meta,
                       in psa_ingress_parser_input_metadata_t istd,
                       in metadata resubmit_meta,
                       in metadata recirculate_meta) {
    InternetChecksum() ck;

    state start {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            TYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }

    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        ck.clear();
        ck.add({ hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.totalLen,
                 hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.fragOffset, hdr.ipv4.ttl,
                 hdr.ipv4.protocol, hdr.ipv4.srcAddr, hdr.ipv4.dstAddr });
        verify(ck.get() == hdr.ipv4.hdrChecksum, error.BadIPv4HeaderChecksum);
        transition accept;
    }
}

control MyIngress(inout headers hdr,
                  inout metadata meta,
                  in    psa_ingress_input_metadata_t  istd,
                  inout psa_ingress_output_metadata_t ostd) {

    action drop() {
        ingress_drop(ostd);
    }

    action ipv4_forward(macAddr_t dstAddr, PortId_t port) {
        send_to_port(ostd, port);
        hdr.ethernet.srcAddr = hdr.ethernet.dstAddr;
        hdr.ethernet.dstAddr = dstAddr;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
    }

    table ipv4_lpm {
        key = {
            hdr.ipv4.dstAddr: lpm;
        }
        actions = {
            ipv4_forward;
            drop;
            NoAction;
        }
        size = 1024;
        default_action = drop();
    }

    apply {
        if (hdr.ipv4.isValid()) {
            ipv4_lpm.apply();
            /* IP precedence picks the egress queue on a switch with traffic classes. */
            ostd.class_of_service = (ClassOfService_t) (ClassOfServiceUint_t) hdr.ipv4.diffserv[7:5];
        }
    }
}

control MyIngressDeparser(packet_out packet,
                          out metadata clone_i2e_meta,
                          out metadata resubmit_meta,
                          out metadata normal_meta,
                          inout headers hdr,
                          in metadata meta,
                          in psa_ingress_output_metadata_t istd) {
    InternetChecksum() ck;

    apply {
        if (hdr.ipv4.isValid()) {
            ck.clear();
            ck.add({ hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.totalLen,
                     hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.fragOffset, hdr.ipv4.ttl,
                     hdr.ipv4.protocol, hdr.ipv4.srcAddr, hdr.ipv4.dstAddr });
            hdr.ipv4.hdrChecksum = ck.get();
        }
        packet.emit(hdr.ethernet);
        packet.emit(hdr.ipv4);
    }
}

/************************** E G R E S S **************************/

parser MyEgressParser(packet_in packet,
                      out headers hdr,
                      inout metadata meta,
                      in psa_egress_parser_input_metadata_t istd,
                      in metadata normal_meta,
                      in metadata clone_i2e_meta,
                      in metadata clone_e2e_meta) {
    state start {
        transition accept;
    }
}

control MyEgress(inout headers hdr,
                 inout metadata meta,
                 in    psa_egress_input_metadata_t  istd,
                 inout psa_egress_output_metadata_t ostd) {
    apply { }
}

control MyEgressDeparser(packet_out packet,
                         out metadata clone_e2e_meta,
                         out metadata recirculate_meta,
                         inout headers hdr,
                         in metadata meta,
                         in psa_egress_output_metadata_t istd,
                         in psa_egress_deparser_input_metadata_t edstd) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.ipv4);
    }
}

IngressPipeline(MyIngressParser(), MyIngress(), MyIngressDeparser()) ip;
EgressPipeline(MyEgressParser(), MyEgress(), MyEgressDeparser()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
