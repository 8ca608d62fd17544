// A PNA passthrough for the DPU network tests: table `pass` maps an input port to its
// output port (the control-plane file dpu_pass.txt pairs p0 <-> p1); an unmapped port drops.
// Counters: `port_pkts` per input port, and `dir_pkts` by direction as the NIC classifies
// the input port (index 0: from a net port, 1: from a host port), so tests can see which
// ports the network made host-facing.
#include <core.p4>
#include <pna.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
struct headers_t { ethernet_t eth; }
struct meta_t { }

parser MainParserImpl(packet_in pkt, out headers_t hdr, inout meta_t meta,
                      in pna_main_parser_input_metadata_t istd) {
    state start { pkt.extract(hdr.eth); transition accept; }
}

control PreControlImpl(in headers_t hdr, inout meta_t meta,
                       in pna_pre_input_metadata_t istd, inout pna_pre_output_metadata_t ostd) {
    apply { }
}

control MainControlImpl(inout headers_t hdr, inout meta_t meta,
                        in pna_main_input_metadata_t istd, inout pna_main_output_metadata_t ostd) {
    Counter<bit<32>, bit<32>>(16, PNA_CounterType_t.PACKETS_AND_BYTES) port_pkts;
    Counter<bit<32>, bit<32>>(2, PNA_CounterType_t.PACKETS) dir_pkts;

    action send(PortId_t port) { send_to_port(port); }
    action drop() { drop_packet(); }
    table pass {
        key = { istd.input_port: exact; }
        actions = { send; drop; }
        default_action = drop();
    }
    apply {
        port_pkts.count(istd.input_port);
        if (is_net_port(istd.input_port)) {
            dir_pkts.count(0);
        } else {
            dir_pkts.count(1);
        }
        pass.apply();
    }
}

control MainDeparserImpl(packet_out pkt, in headers_t hdr, in meta_t meta,
                         in pna_main_output_metadata_t ostd) {
    apply { pkt.emit(hdr.eth); }
}

PNA_NIC(MainParserImpl(), PreControlImpl(), MainControlImpl(), MainDeparserImpl()) main;
