/* Direct invocation: `Mark.apply(...)` applies an anonymous instance of Mark, which p4c
 * names after the type, so its table is MyIngress.Mark.t. A control applied directly in
 * another control that is itself instantiated nests the names: MyIngress.w.Mark.t.
 */
struct metadata { }
#include "arch_common.p4h"

control Mark(inout bit<8> v) {
    action set(bit<8> x) { v = x; }
    table t {
        key = { v : exact; }
        actions = { set; NoAction; }
        default_action = NoAction();
    }
    apply { t.apply(); }
}

control Wrap(inout obs_t o) {
    apply { Mark.apply(o.f); }
}

control MyIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    Wrap() w;
    apply {
        sm.egress_spec = 1;
        Mark.apply(hdr.obs.e);
        w.apply(hdr.obs);
    }
}

control MyEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }

V1Switch(ObsParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), ObsDeparser()) main;
