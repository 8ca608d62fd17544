/* switch (t.apply().action_run): the case of the action that ran, which on a miss
 * is the default action; `default:` catches the rest. setdefault changes which case
 * a miss takes.
 */
struct metadata { }
#include "arch_common.p4h"

control MyIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    action a1() { hdr.obs.g = 0x01; }
    action a2() { hdr.obs.g = 0x02; }
    action a3(bit<8> v) { hdr.obs.g = v; }
    table sel {
        key = { hdr.obs.e : exact; }
        actions = { a1; a2; a3; }
        default_action = a2();
    }
    apply {
        sm.egress_spec = 2;
        switch (sel.apply().action_run) {
            a1: { hdr.obs.f = 0x11; }
            a2: { hdr.obs.f = 0x22; sm.egress_spec = 3; }
            default: { hdr.obs.f = 0xdd; }
        }
    }
}

control MyEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply { }
}

V1Switch(ObsParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), ObsDeparser()) main;
