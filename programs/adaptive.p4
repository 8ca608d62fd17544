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
 * State: LeastLoaded's turn[slot] (port_backlog is the fabric's); path mode:
 * congestion_from_leaf, congestion_to_leaf, to_leaf_time, path_avoid (leaf * 8 + LBTag) and
 * fb_next[leaf]. A group without an
 * ecmp_members entry falls back to the flow hash (hash_select, today's ECMP).
 *
 * adaptive_config (no key; set its default action): set_adaptive(shift), the load quantum
 * 2^shift bytes (default 14: 16 KiB; 0 compares bytes).
 *
 * Path mode (CONGA, SIGCOMM'14), off unless path_config's default action is set_path(edge,
 * leaf, age_us, shift, share) (every switch; edge = 1 on those with hosts): a switch sees only
 * its own queues, but in a fat tree the source edge's uplink fixes the aggregation switch a
 * packet comes down through in the destination pod, so a slow link three hops on is out of
 * its sight. Leaves are named by their hosts' /24 (10.p.e: leaf = p[3:0] ++ e[7:0], 12 bits;
 * fat trees up to k = 16, leaf-spines up to 256 leaves).
 *  - source edge (a routed IPv4 packet from its own /24 to another, ECMP to choose, no shim
 *    yet): inserts lb_path (lb_common.p4h) after Ethernet: src_leaf, LBTag = the member
 *    chosen, CE = 0, and one feedback entry (FB_LBTag, FB_Metric) of congestion_from_leaf for
 *    the destination leaf, the entries taken in turn (fb_next); an entry no packet refreshed
 *    for age_us goes out as not valid;
 *  - every switch's egress raises CE to its own queue in units of 2^shift bytes
 *    (lb_common.p4h);
 *  - destination edge (shim valid, destination in its /24): congestion_from_leaf[src leaf]
 *    [LBTag] = CE; a valid feedback entry goes to congestion_to_leaf[src leaf][FB_LBTag] with
 *    the time; the shim is taken off, so hosts never see it;
 *  - the source edge's choice: LeastLoaded's, its own ports' backlog first, and among members
 *    of equal backlog the least congestion_to_leaf[dst leaf][member] (meta.remoteN; 0 once
 *    older than age_us, as CONGA ages its table, so a path no longer reported is tried again).
 *    Only share/256 of the packets (a random draw each) look at the remote metrics; the others
 *    go by the local backlog alone. Why: decisions are per packet and the metrics are a round
 *    trip old, so if every packet heeded them all senders would move together onto the path
 *    that looked best a round trip ago (CONGA decides per flowlet, which moves far fewer
 *    bytes at once); heeding a share of them shifts the split by a share of the load, and the
 *    feedback tells whether it was enough. Measured in docs/loadbalance.md.
 *  - avoidance (off unless avoid_config's default action is set_avoid(up, down)): instead of a
 *    share heeding the metrics, every packet from the source edge passes member m over
 *    (meta.avoidN = 1: it loses to every member not passed over, whatever the loads; among
 *    the rest the local backlog, then the turn) when its draw (0..255) is below
 *    path_avoid[dst leaf][m], a chance in 256ths (0: never, 256: always) the destination
 *    edge's reports move: up by `up` for each valid report of CE > 0, down by `down` for each
 *    report of 0; older than age_us it counts as 0, like the metrics. The source edge's own
 *    hop is left out of CE (meta.path_first): the packets passed over go to the other uplinks,
 *    whose queues would otherwise report those paths congested too; the local backlog
 *    balances the uplinks. Why: with a share, at least (1 - share) of a leaf's packets go
 *    round the members, so a path of half the rate still gets its quarter of them, and a
 *    snapshot metric swings the rest between all and none of it. A chance that integrates
 *    the reports settles where the path's queue is past the quantum in down/(up + down) of
 *    them: the path kept busy, its part of the traffic near its part of the capacity.
 * Feedback takes member indices in turn up to the packet's own group size: it assumes the
 * leaves have as many uplinks as each other (true of fat trees and leaf-spines here).
 *
 * Routes, headers, egress (smac, ECN marking): lb_routes.p4h and lb_common.p4h.
 */
#include "lb_common.p4h"
#include "lb_least_loaded.p4h"

const bit<32> LEAVES = 4096;
const bit<32> LEAF_ENTRIES = 32768;   /* LEAVES * 8 members */

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

    /* Path mode (the header comment). */
    register<bit<8>>(LEAF_ENTRIES) congestion_from_leaf;
    register<bit<48>>(LEAF_ENTRIES) from_leaf_time;
    register<bit<8>>(LEAF_ENTRIES) congestion_to_leaf;
    register<bit<48>>(LEAF_ENTRIES) to_leaf_time;
    register<bit<4>>(LEAVES) fb_next;

    bit<1> path_on = 0;
    bit<12> my_leaf = 0;
    bit<48> age_us = 0;

    bit<8> ce_shift = 14;
    bit<1> heed = 0;
    bit<9> heed_share = 0;

    action set_path(bit<1> edge, bit<12> leaf, bit<48> age, bit<8> shift, bit<9> share) {
        path_on = edge;
        my_leaf = leaf;
        age_us = age;
        ce_shift = shift;
        heed_share = share;
    }

    table path_config {
        actions = {
            set_path;
            NoAction;
        }
        default_action = NoAction();
    }

    /* Avoidance (off unless avoid_config's default action is set_avoid(up, down)): per
       (leaf, member) the chance, in 256ths, that a packet from here to that leaf passes that
       member over (the header comment). */
    register<bit<16>>(LEAF_ENTRIES) path_avoid;

    bit<1> avoid_on = 0;
    bit<16> avoid_up = 0;
    bit<16> avoid_down = 0;

    action set_avoid(bit<16> up, bit<16> down) {
        avoid_on = 1;
        avoid_up = up;
        avoid_down = down;
    }

    table avoid_config {
        actions = {
            set_avoid;
            NoAction;
        }
        default_action = NoAction();
    }

    bit<48> stamp = 0;

    bit<8> metric = 0;

    /* congestion_to_leaf[at], 0 once older than age_us */
    action remote_of(in bit<32> at, out bit<8> m) {
        congestion_to_leaf.read(metric, at);
        to_leaf_time.read(stamp, at);
        m = (standard_metadata.ingress_global_timestamp - stamp > age_us) ? 8w0 : metric;
    }

    bit<16> chance = 0;

    /* 1 when this packet passes member at over: its draw below path_avoid[at] (0 once older
       than age_us, like the metrics) */
    action avoid_of(in bit<32> at, in bit<8> draw, out bit<1> m) {
        path_avoid.read(chance, at);
        to_leaf_time.read(stamp, at);
        m = (standard_metadata.ingress_global_timestamp - stamp > age_us) ? 1w0
            : (((bit<16>)draw < chance) ? 1w1 : 1w0);
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
            adaptive_config.apply();
            path_config.apply();
            avoid_config.apply();
            meta.path_shift = ce_shift;
            bit<12> src_leaf = hdr.ipv4.srcAddr[19:16] ++ hdr.ipv4.srcAddr[15:8];
            bit<12> dst_leaf = hdr.ipv4.dstAddr[19:16] ++ hdr.ipv4.dstAddr[15:8];
            bit<1> source = 0;
            bit<8> draw = 0;
            if (path_on == 1 && hdr.lb_path.isValid() && dst_leaf == my_leaf) {
                bit<32> from = (bit<32>)(hdr.lb_path.src_leaf ++ hdr.lb_path.lbtag[2:0]);
                congestion_from_leaf.write(from, hdr.lb_path.ce);
                from_leaf_time.write(from, standard_metadata.ingress_global_timestamp);
                if (hdr.lb_path.fb_valid == 1) {
                    bit<32> to = (bit<32>)(hdr.lb_path.src_leaf ++ hdr.lb_path.fb_lbtag[2:0]);
                    congestion_to_leaf.write(to, hdr.lb_path.fb_metric);
                    to_leaf_time.write(to, standard_metadata.ingress_global_timestamp);
                    if (avoid_on == 1) {
                        /* a congested report raises the chance of passing that member over, a
                           clear one lowers it: held between 0 and 256 (always) */
                        bit<16> p;
                        path_avoid.read(p, to);
                        if (hdr.lb_path.fb_metric > 0) {
                            p = (p + avoid_up > 256) ? 16w256 : p + avoid_up;
                        } else {
                            p = (p > avoid_down) ? p - avoid_down : 16w0;
                        }
                        path_avoid.write(to, p);
                    }
                }
                hdr.ethernet.etherType = hdr.lb_path.etherType;
                hdr.lb_path.setInvalid();
            } else if (path_on == 1 && !hdr.lb_path.isValid() && meta.use_ecmp == 1 && src_leaf == my_leaf
                       && dst_leaf != my_leaf) {
                source = 1;
                random(draw, 8w0, 8w255);
                heed = ((bit<9>)draw < heed_share) ? 1w1 : 1w0;
            }
            if (source == 1 && avoid_on == 1) {
                /* every packet: the members it passes over lose to the others (meta.avoidN = 1) */
                bit<32> base = (bit<32>)(dst_leaf ++ 3w0);
                avoid_of(base + 0, draw, meta.avoid0);
                avoid_of(base + 1, draw, meta.avoid1);
                avoid_of(base + 2, draw, meta.avoid2);
                avoid_of(base + 3, draw, meta.avoid3);
                avoid_of(base + 4, draw, meta.avoid4);
                avoid_of(base + 5, draw, meta.avoid5);
                avoid_of(base + 6, draw, meta.avoid6);
                avoid_of(base + 7, draw, meta.avoid7);
            } else if (source == 1 && heed == 1) {
                bit<32> base = (bit<32>)(dst_leaf ++ 3w0);
                remote_of(base + 0, meta.remote0);
                remote_of(base + 1, meta.remote1);
                remote_of(base + 2, meta.remote2);
                remote_of(base + 3, meta.remote3);
                remote_of(base + 4, meta.remote4);
                remote_of(base + 5, meta.remote5);
                remote_of(base + 6, meta.remote6);
                remote_of(base + 7, meta.remote7);
            }
            if (meta.use_ecmp == 1) {
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
            if (source == 1) {
                hdr.lb_path.setValid();
                hdr.lb_path.src_leaf = my_leaf;
                hdr.lb_path.lbtag = (bit<4>)meta.ecmp_select;
                hdr.lb_path.ce = 0;
                meta.path_first = avoid_on;
                bit<4> n;
                fb_next.read(n, (bit<32>)dst_leaf);
                if ((bit<16>)n >= meta.ecmp_count) {
                    n = 0;
                }
                fb_next.write((bit<32>)dst_leaf, n + 1);
                bit<8> fb;
                bit<48> seen;
                congestion_from_leaf.read(fb, (bit<32>)(dst_leaf ++ n[2:0]));
                from_leaf_time.read(seen, (bit<32>)(dst_leaf ++ n[2:0]));
                hdr.lb_path.fb_lbtag = n;
                /* a path no packet took for age_us is not reported: its metric says nothing now */
                hdr.lb_path.fb_valid = (standard_metadata.ingress_global_timestamp - seen > age_us) ? 1w0 : 1w1;
                hdr.lb_path.fb_metric = fb;
                hdr.lb_path.reserved0 = 0;
                hdr.lb_path.reserved1 = 0;
                hdr.lb_path.etherType = hdr.ethernet.etherType;
                hdr.ethernet.etherType = TYPE_LB_PATH;
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
