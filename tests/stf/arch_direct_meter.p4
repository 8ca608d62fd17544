/* A table with a direct_meter and a direct_counter attached. The action reads the
 * entry's meter colour into obs.f (GREEN 0, YELLOW 1, RED 2). A meter that was never
 * configured marks everything GREEN. meter_set_rates on a direct meter takes the
 * entry handle as its index and configures that entry only: committed 1 packet and
 * peak 2 packets of burst at a negligible refill rate give GREEN, YELLOW, RED, RED.
 */
struct metadata {
    bit<8> color;
}
#include "arch_common.p4h"

control MyIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    direct_meter<bit<8>>(MeterType.packets) dm;
    direct_counter(CounterType.packets_and_bytes) dc;

    action metered(bit<9> port) {
        dm.read(meta.color);
        sm.egress_spec = port;
    }
    action unmetered() {
        sm.egress_spec = 9;
        meta.color = 0x44;
    }
    table policer {
        key = { hdr.obs.e : exact; }
        actions = { metered; unmetered; }
        default_action = unmetered();
        meters = dm;
        counters = dc;
    }
    apply {
        policer.apply();
        hdr.obs.f = meta.color;
    }
}

control MyEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply { }
}

V1Switch(ObsParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), ObsDeparser()) main;
