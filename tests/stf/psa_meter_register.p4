// PSA Meter, DirectMeter and Register as psa_switch runs them. An unconfigured meter marks
// every packet GREEN (PSA_MeterColor_t: RED 0, GREEN 1, YELLOW 2); psa_switch meters
// colour-blind, so execute(index, RED) is GREEN too. A DirectMeter (psa_direct_meter) marks
// on a table hit. A Register starts at its initial value; read out of range gives 0 and
// write out of range does nothing.
#include "psa_common.p4h"

bit<8> color_code(in PSA_MeterColor_t c) {
    if (c == PSA_MeterColor_t.RED) { return 0; }
    if (c == PSA_MeterColor_t.GREEN) { return 1; }
    return 2;
}

control MyIngress(inout headers_t hdr, inout meta_t meta, in psa_ingress_input_metadata_t istd,
                  inout psa_ingress_output_metadata_t ostd) {
    Meter<bit<8>>(8, PSA_MeterType_t.PACKETS) m;
    DirectMeter(PSA_MeterType_t.BYTES) dm;
    Register<bit<32>, bit<8>>(4, 7) reg;
    bit<8> direct = 0xff;

    action hit() {
        direct = color_code(dm.execute());
    }
    table t {
        key = { hdr.obs.path: exact; }
        actions = { hit; NoAction; }
        const entries = { 1: hit(); }
        default_action = NoAction();
        psa_direct_meter = dm;
    }

    apply {
        send_to_port(ostd, (PortId_t) 2);
        hdr.obs.cos = color_code(m.execute(hdr.obs.cos));
        hdr.obs.inst = color_code(m.execute(0, PSA_MeterColor_t.RED)) ++ 8w0;
        t.apply();
        hdr.obs.inst = hdr.obs.inst | (bit<16>) direct;
        bit<32> seen = reg.read(hdr.obs.port[7:0]);
        reg.write(hdr.obs.port[7:0], seen + 1);
        hdr.obs.a = seen;
        hdr.obs.b = reg.read(9);
        reg.write(9, 5);
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, in psa_egress_input_metadata_t istd,
                 inout psa_egress_output_metadata_t ostd) {
    apply { }
}

IngressPipeline(IngressParserImpl(), MyIngress(), IngressDeparserImpl()) ip;
EgressPipeline(EgressParserImpl(), MyEgress(), EgressDeparserImpl()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
