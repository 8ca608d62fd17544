/* An indirect meter (meter.execute_meter) and counter. Cells never configured mark
 * GREEN. meter_set_rates configures one cell, meter_array_set_rates all of them;
 * committed 1 / peak 2 packets of burst with a negligible refill rate give GREEN,
 * YELLOW, RED.
 * obs.e is the meter index, obs.f the colour.
 */
struct metadata {
    bit<8> color;
}
#include "arch_common.p4h"

control MyIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    meter(4, MeterType.packets) m;
    counter(4, CounterType.packets_and_bytes) c;
    apply {
        meta.color = 0;
        m.execute_meter((bit<32>) hdr.obs.e, meta.color);
        c.count((bit<32>) hdr.obs.e);
        hdr.obs.f = meta.color;
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply { }
}

V1Switch(ObsParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), ObsDeparser()) main;
