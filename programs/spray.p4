/* -*- P4_16 -*- */
/*
 * spray.p4 -- per-packet spraying over the members of an ECMP group (v1model).
 *
 * Rule: every packet is a decision of its own:
 *   round robin (the default): each flow's packets take the group's members in turn, select
 *     0, 1, ... count - 1, 0, ... (per flow: one turn shared by all the flows of a group would
 *     alias, two flows interleaved packet by packet each getting every other member, so each
 *     would keep to one path);
 *   random: a member drawn uniformly (v1model random()) for each packet.
 * A flow's packets take every path, so they spread evenly whatever the flows are, and arrive
 * out of order whenever the paths' queues differ: the receivers must place them (the
 * transport's sack receiver, dataplane.net.rdma).
 * State: register rr_next[slot] (bit<16>), the select the flow's next packet takes in round
 * robin (reset to 0 once it reaches count), per slot of RR_SLOTS indexed by crc32 of the
 * 5-tuple (two flows may share a slot, and then share a turn).
 *
 * spray_config (no key; set its default action): set_spray(mode), mode 0 round robin (the
 * default), 1 random.
 *
 * Routes, headers, egress (smac, ECN marking): lb_routes.p4h and lb_common.p4h.
 */
#include "lb_common.p4h"

const bit<32> RR_SLOTS = 8192;
const bit<8> SPRAY_ROUND_ROBIN = 0;
const bit<8> SPRAY_RANDOM = 1;

control MyIngress(inout headers hdr,
                  inout metadata meta,
                  inout standard_metadata_t standard_metadata) {

#include "lb_routes.p4h"

    /* The next select of each flow slot, in round robin. */
    register<bit<16>>(RR_SLOTS) rr_next;

    bit<8> spray_mode = SPRAY_ROUND_ROBIN;

    action set_spray(bit<8> mode) {
        spray_mode = mode;
    }

    table spray_config {
        actions = {
            set_spray;
        }
        default_action = set_spray(SPRAY_ROUND_ROBIN);
    }

    apply {
        if (!hdr.ipv4.isValid()) {
            drop();
        } else if (standard_metadata.checksum_error == 1 || hdr.ipv4.ttl <= 1) {
            drop();
        } else {
            ipv4_lpm.apply();
            if (meta.use_ecmp == 1) {
                spray_config.apply();
                if (spray_mode == SPRAY_RANDOM) {
                    random(meta.ecmp_select, 16w0, meta.ecmp_count - 1);
                } else {
                    bit<32> slot;
                    hash(slot, HashAlgorithm.crc32, 32w0,
                         { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.ipv4.protocol, meta.l4_src, meta.l4_dst },
                         RR_SLOTS);
                    bit<16> next;
                    rr_next.read(next, slot);
                    if (next >= meta.ecmp_count) {
                        next = 0;
                    }
                    meta.ecmp_select = next;
                    rr_next.write(slot, next + 1);
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
