/* -*- P4_16 -*- */
/*
 * flowlet.p4 -- flowlet switching (v1model): a flow may change member only after a gap.
 *
 * Rule: a flow keeps the member it has while its packets follow each other closely; when
 * a packet comes at least timeout_us after the flow's previous one (a gap longer than any
 * difference in path delay, so the new flowlet cannot overtake the old one), it starts a
 * new flowlet on a member chosen afresh:
 *   random (mode 0, the default): uniformly at random, as LetFlow (NSDI'17) does;
 *   least loaded (mode 1): the member whose port has the fewest bytes waiting, in units of
 *     2^shift bytes (LeastLoaded, lb_least_loaded.p4h), a CONGA-like choice by load but from this
 *     switch's own queues only: CONGA (SIGCOMM'14) also carries the path's congestion from
 *     leaf to leaf in an overlay header, which this fabric has no room for. A group without
 *     an ecmp_members entry falls back to random.
 * A long flow sent back to back at line rate has no gaps, so it never moves: flowlets help
 * where traffic pauses (PFC, windows, bursts).
 * State, per flowlet slot (FLOWLET_SLOTS, indexed by crc32 of the 5-tuple, so two flows may
 * share a slot as in any flowlet table): flowlet_time[slot], the ingress time in us
 * (standard_metadata.ingress_global_timestamp, low 32 bits) of the slot's last packet, and
 * flowlet_member[slot], its select + 1 (0: empty slot; a select not below the packet's
 * count, another group's, also starts a flowlet). Counter flowlets[0] counts the flowlets
 * started.
 *
 * flowlet_config (no key; set its default action): set_flowlet(timeout_us, mode, shift); the
 * default is set_flowlet(50, 0, 14).
 *
 * Routes, headers, egress (smac, ECN marking): lb_routes.p4h and lb_common.p4h.
 */
#include "lb_common.p4h"
#include "lb_least_loaded.p4h"

const bit<32> FLOWLET_SLOTS = 8192;
const bit<8> FLOWLET_RANDOM = 0;
const bit<8> FLOWLET_LEAST_LOADED = 1;

control MyIngress(inout headers hdr,
                  inout metadata meta,
                  inout standard_metadata_t standard_metadata) {

#include "lb_routes.p4h"

    register<bit<32>>(FLOWLET_SLOTS) flowlet_time;
    register<bit<16>>(FLOWLET_SLOTS) flowlet_member;
    counter(1, CounterType.packets) flowlets;
    LeastLoaded() least_loaded;

    bit<32> timeout_us = 50;
    bit<8> flowlet_mode = FLOWLET_RANDOM;
    bit<8> load_shift = 14;

    action set_flowlet(bit<32> timeout, bit<8> mode, bit<8> shift) {
        timeout_us = timeout;
        flowlet_mode = mode;
        load_shift = shift;
    }

    table flowlet_config {
        actions = {
            set_flowlet;
        }
        default_action = set_flowlet(50, FLOWLET_RANDOM, 14);
    }

    apply {
        if (!hdr.ipv4.isValid()) {
            drop();
        } else if (standard_metadata.checksum_error == 1 || hdr.ipv4.ttl <= 1) {
            drop();
        } else {
            ipv4_lpm.apply();
            if (meta.use_ecmp == 1) {
                flowlet_config.apply();
                bit<32> slot;
                hash(slot, HashAlgorithm.crc32, 32w0,
                     { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.ipv4.protocol, meta.l4_src, meta.l4_dst },
                     FLOWLET_SLOTS);
                bit<32> now = standard_metadata.ingress_global_timestamp[31:0];
                bit<32> last;
                bit<16> member;
                flowlet_time.read(last, slot);
                flowlet_member.read(member, slot);
                if (member == 0 || member > meta.ecmp_count || now - last >= timeout_us) {
                    bit<1> chosen = 0;
                    if (flowlet_mode == FLOWLET_LEAST_LOADED) {
                        least_loaded.apply(meta, slot % TURN_SLOTS, load_shift, chosen);
                    }
                    if (chosen == 0) {
                        random(meta.ecmp_select, 16w0, meta.ecmp_count - 1);
                    }
                    flowlet_member.write(slot, meta.ecmp_select + 1);
                    flowlets.count(0);
                } else {
                    meta.ecmp_select = member - 1;
                }
                flowlet_time.write(slot, now);
                ecmp_nhop.apply();
            }
        }
    }
}

V1Switch(
    MyParser(),
    MyVerifyChecksum(),
    MyIngress(),
    MyEgress(),
    MyComputeChecksum(),
    MyDeparser()
) main;
