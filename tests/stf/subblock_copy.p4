/* Arguments of a sub-control's apply, as p4c inlines them for BMv2. The arguments stand for
 * the parameters when every call of the instance passes the same ones and they do not
 * overlap: writes land at once, so they stay when the sub-control exits. Otherwise each
 * parameter is a copy, copied back at the end: `exit` (which ends all of MyIngress)
 * skips that, and two overlapping inout arguments are copied back in parameter order.
 * `return` ends only the sub-control. An `out` header starts invalid.
 * obs.e picks the case; obs.h = 0x33 marks that MyIngress ran to its end.
 */
struct metadata { }
#include "arch_common.p4h"

control Ret(inout bit<8> x) {
    apply {
        x = 1;
        if (x == 1) {
            return;
        }
        x = 2;
    }
}

control Leave(inout bit<8> x) {
    apply {
        x = x + 1;
        exit;
    }
}

control Two(inout bit<8> a, inout bit<8> b) {
    apply {
        a = a + 1;
        b = b + 0x10;
    }
}

control Clear(out ethernet_t e) {
    apply { }
}

control MyIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    Ret() ret;
    Leave() leave;
    Leave() twoSites;
    Two() two;
    Clear() clear;
    apply {
        sm.egress_spec = 1;
        if (hdr.obs.e == 1) {
            ret.apply(hdr.obs.f);
        } else if (hdr.obs.e == 2) {
            leave.apply(hdr.obs.f);
        } else if (hdr.obs.e == 3) {
            twoSites.apply(hdr.obs.f);
        } else if (hdr.obs.e == 4) {
            twoSites.apply(hdr.obs.g);
        } else if (hdr.obs.e == 5) {
            two.apply(hdr.obs.g, hdr.obs.g);
        } else if (hdr.obs.e == 6) {
            clear.apply(hdr.eth);
        }
        hdr.obs.h = 0x33;
    }
}

control MyEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }

V1Switch(ObsParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), ObsDeparser()) main;
