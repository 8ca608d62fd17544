/* Extern sizes given as members of a serializable enum (as p4c's issue2844 does): the
 * instance takes the member's value. r has Sizes.REGS = 4 cells; each packet stores obs.f in
 * r[obs.e] and reads r[3] into obs.g; c counts packets per obs.e in Sizes.COUNTERS = 6 cells.
 * An index past the size reads 0 (BMv2's out-of-range register read in p4c's lowering).
 */
enum bit<32> Sizes { REGS = 4, COUNTERS = 6 }
struct metadata { }
#include "arch_common.p4h"

control MyIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    register<bit<8>>((bit<32>)Sizes.REGS) r;
    counter(Sizes.COUNTERS, CounterType.packets) c;
    apply {
        r.write((bit<32>)hdr.obs.e, hdr.obs.f);
        r.read(hdr.obs.g, 3);
        c.count((bit<32>)hdr.obs.e);
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply { }
}

V1Switch(ObsParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), ObsDeparser()) main;
