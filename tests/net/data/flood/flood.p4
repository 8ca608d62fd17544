/* A learning-free L2 switch in the style of the P4 tutorials' multicast exercise: known
 * destination MACs go out of one port (mac_lookup), everything else (broadcast ARP) is
 * replicated to multicast group 1, minus the port it came in on. */
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

struct headers { ethernet_t ethernet; }
struct metadata { }

parser FloodParser(packet_in pk, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.ethernet);
        transition accept;
    }
}

control FloodVerify(inout headers hdr, inout metadata meta) { apply { } }

control FloodIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    action flood() { sm.mcast_grp = 1; }
    action to_port(bit<9> port) { sm.egress_spec = port; }
    table mac_lookup {
        key = { hdr.ethernet.dstAddr : exact; }
        actions = { flood; to_port; }
        default_action = flood();
    }
    apply { mac_lookup.apply(); }
}

control FloodEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        if (sm.egress_port == sm.ingress_port) {
            mark_to_drop(sm);
        }
    }
}

control FloodCompute(inout headers hdr, inout metadata meta) { apply { } }

control FloodDeparser(packet_out pk, in headers hdr) { apply { pk.emit(hdr.ethernet); } }

V1Switch(FloodParser(), FloodVerify(), FloodIngress(), FloodEgress(), FloodCompute(), FloodDeparser()) main;
