/* A small PNA forwarder: net ports 0-1, host ports 2-3 (the emulator's default of 4 ports).
 * Net -> host: dst MAC picks the host port. Host -> net: always net port 0.
 * Unknown dst MAC from the net: dropped (no send_to_port). Decrements IPv4 TTL and
 * recomputes the header checksum with InternetChecksum; counts packets per input port
 * in a Register. */
#include <core.p4>
#include <pna.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> diffserv; bit<16> total_len;
    bit<16> identification; bit<3> flags; bit<13> frag_offset;
    bit<8> ttl; bit<8> protocol; bit<16> hdr_checksum;
    bit<32> src_addr; bit<32> dst_addr;
}
struct headers_t { ethernet_t eth; ipv4_t ipv4; }
struct meta_t { bit<32> seen; }

parser MainParserImpl(packet_in pkt, out headers_t hdr, inout meta_t meta,
                      in pna_main_parser_input_metadata_t istd) {
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etype) { 0x0800: parse_ipv4; default: accept; }
    }
    state parse_ipv4 { pkt.extract(hdr.ipv4); transition accept; }
}

control PreControlImpl(in headers_t hdr, inout meta_t meta,
                       in pna_pre_input_metadata_t istd, inout pna_pre_output_metadata_t ostd) {
    apply { }
}

control MainControlImpl(inout headers_t hdr, inout meta_t meta,
                        in pna_main_input_metadata_t istd, inout pna_main_output_metadata_t ostd) {
    Register<bit<32>, bit<32>>(8) pkts;
    InternetChecksum() ck;

    action to_host(PortId_t port) { send_to_port(port); }
    action drop() { drop_packet(); }
    table host_fwd {
        key = { hdr.eth.dst: exact; }
        actions = { to_host; drop; }
        default_action = drop();
        const entries = {
            0x020000000002 : to_host(2);
            0x020000000003 : to_host(3);
        }
    }
    apply {
        meta.seen = pkts.read(istd.input_port) + 1;
        pkts.write(istd.input_port, meta.seen);
        if (is_net_port(istd.input_port)) {
            host_fwd.apply();
        } else {
            send_to_port(SelectByDirection(istd.direction, (PortId_t)1, (PortId_t)0));
        }
        if (hdr.ipv4.isValid()) {
            hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
            ck.clear();
            ck.add({hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.total_len,
                    hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.frag_offset,
                    hdr.ipv4.ttl, hdr.ipv4.protocol,
                    hdr.ipv4.src_addr, hdr.ipv4.dst_addr});
            hdr.ipv4.hdr_checksum = ck.get();
        }
    }
}

control MainDeparserImpl(packet_out pkt, in headers_t hdr, in meta_t meta,
                         in pna_main_output_metadata_t ostd) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.ipv4); }
}

PNA_NIC(MainParserImpl(), PreControlImpl(), MainControlImpl(), MainDeparserImpl()) main;
