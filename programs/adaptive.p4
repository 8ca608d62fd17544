/* -*- P4_16 -*- */
/*
 * adaptive.p4 -- adaptive routing, DRILL-style (SIGCOMM'17): every packet takes the member
 * whose port has the fewest bytes waiting (v1model).
 *
 * Rule: per packet, LeastLoaded (lb_least_loaded.p4h) compares the load of every member of
 * the group (up to 8), in units of 2^shift bytes, and picks the least; ties go round the
 * members per flow. DRILL samples d random queues plus the best of last time because a switch
 * has many forwarding engines looking at the queues at once and they would all herd onto the
 * same one; here one pipeline sees the queues as they are at that instant (the emulator
 * updates port_backlog before every packet), so comparing them all is DRILL with d = all and
 * no memory. Like spraying, a flow's packets take several paths and may arrive out of order;
 * unlike it, a slow member gets less traffic once its queue is a quantum longer.
 * How it learns its ports' load: the register port_backlog[port] that the emulator keeps
 * (lb_least_loaded.p4h says what it holds and why v1model needs it).
 * State: LeastLoaded's turn[slot] (port_backlog is the fabric's). A group without an
 * ecmp_members entry falls back to the flow hash (hash_select, today's ECMP).
 *
 * adaptive_config (no key; set its default action): set_adaptive(shift), the load quantum
 * 2^shift bytes (default 14: 16 KiB; 0 compares bytes).
 *
 * Routes, headers, egress (smac, ECN marking): lb_routes.p4h and lb_common.p4h.
 */
#include "lb_common.p4h"
#include "lb_least_loaded.p4h"

control MyIngress(inout headers hdr,
                  inout metadata meta,
                  inout standard_metadata_t standard_metadata) {

#include "lb_routes.p4h"

    LeastLoaded() least_loaded;

    bit<8> load_shift = 14;

    action set_adaptive(bit<8> shift) {
        load_shift = shift;
    }

    table adaptive_config {
        actions = {
            set_adaptive;
        }
        default_action = set_adaptive(14);
    }

    /* The 5-tuple's crc32, reduced to [0, count): today's ECMP, the fallback. */
    action hash_select() {
        hash(meta.ecmp_select,
             HashAlgorithm.crc32,
             (bit<16>)0,
             { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.ipv4.protocol, meta.l4_src, meta.l4_dst },
             meta.ecmp_count);
    }

    apply {
        if (!hdr.ipv4.isValid()) {
            drop();
        } else if (standard_metadata.checksum_error == 1 || hdr.ipv4.ttl <= 1) {
            drop();
        } else {
            ipv4_lpm.apply();
            if (meta.use_ecmp == 1) {
                adaptive_config.apply();
                bit<32> slot;
                hash(slot, HashAlgorithm.crc32, 32w0,
                     { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.ipv4.protocol, meta.l4_src, meta.l4_dst },
                     TURN_SLOTS);
                bit<1> chosen;
                least_loaded.apply(meta, slot, load_shift, chosen);
                if (chosen == 0) {
                    hash_select();
                }
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
