/* Exact match on two fields, the default action (with arguments), setdefault,
 * and apply().hit / apply().miss.
 *
 * fwd(port, tag) sets egress_spec and obs.c; the default action set_tag(0xdead)
 * leaves egress_spec alone (so a miss goes to port 0). obs.f = 1 on a hit, 2 on a
 * miss; a second table (keyless) reports .miss into obs.g.
 */
struct metadata { }
#include "arch_common.p4h"

control MyIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    action fwd(bit<9> port, bit<16> tag) {
        sm.egress_spec = port;
        hdr.obs.c = tag;
    }
    action set_tag(bit<16> tag) {
        hdr.obs.c = tag;
    }
    table ex {
        key = {
            hdr.obs.a : exact;
            hdr.obs.e : exact;
        }
        actions = { fwd; set_tag; NoAction; }
        default_action = set_tag(0xdead);
    }
    action mark_g() { hdr.obs.g = 0x77; }
    table exm {
        key = { hdr.obs.b : exact; }
        actions = { mark_g; NoAction; }
        default_action = NoAction();
    }
    apply {
        if (ex.apply().hit) {
            hdr.obs.f = 1;
        } else {
            hdr.obs.f = 2;
        }
        if (exm.apply().miss) {
            hdr.obs.h = 0xEE;
        }
    }
}

control MyEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply { }
}

V1Switch(ObsParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), ObsDeparser()) main;
