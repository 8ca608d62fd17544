/* Registers written from the control plane (register_write, register_reset) and
 * read and written by the program. Each packet reads r[e] into obs.a and stores
 * r[e] + 1; obs.f gets the 8-bit register r8[1]. Registers start at 0.
 */
struct metadata { }
#include "arch_common.p4h"

control MyIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    register<bit<32>>(8) r;
    register<bit<8>>(4) r8;
    apply {
        bit<32> v;
        r.read(v, (bit<32>) hdr.obs.e);
        hdr.obs.a = v;
        r.write((bit<32>) hdr.obs.e, v + 1);
        bit<8> w;
        r8.read(w, 1);
        hdr.obs.f = w;
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply { }
}

V1Switch(ObsParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), ObsDeparser()) main;
