/* A register of a struct type (an extension: p4c's BMv2 back end refuses it, its front end
 * accepts it; a struct holding structs cannot be an extern's out argument). Each packet reads cell r[obs.e] into c, reports its fields in obs, updates them
 * and writes c back; then it clears c.a, which must not reach the cell (cells hold values).
 * An index past the size leaves c as it was (BMv2's register read) and writes nothing.
 */
struct Cell { bit<16> a; int<8> s; bit<8> b; bool flag; }
struct metadata { }
#include "arch_common.p4h"

control MyIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    register<Cell>(4) r;
    apply {
        Cell c;
        c.a = 0xbeef;
        r.read(c, (bit<32>)hdr.obs.e);
        hdr.obs.c = c.a;
        hdr.obs.f = (bit<8>)c.s;
        hdr.obs.g = c.b;
        hdr.obs.h = c.flag ? 8w1 : 8w0;
        c.a = c.a + hdr.obs.d;
        c.s = c.s - 1;
        c.b = c.b + 1;
        c.flag = !c.flag;
        r.write((bit<32>)hdr.obs.e, c);
        c.a = 0;
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply { }
}

V1Switch(ObsParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), ObsDeparser()) main;
