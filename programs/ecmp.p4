/* -*- P4_16 -*- */
/*
 * ecmp.p4 -- per-flow ECMP: a hash of the 5-tuple picks the member (v1model).
 *
 * Rule: every packet of a flow takes the member hash(fields) mod count, so a flow never
 * changes path and never arrives out of order, but two long flows hashed onto one uplink
 * share it while another may sit idle.
 * State: none (the routes, and the hash_config default action).
 *
 * hash_config (no key; set its default action) chooses the hash:
 *   set_hash(seed, fields), fields a bit mask of what is hashed: 1 source address,
 *   2 destination address, 4 protocol, 8 L4 source port, 16 L4 destination port (31: the
 *   5-tuple, the default). Fields left out hash as zeros.
 *   seed 0 (the default): crc32 of the fields mod count, exactly ecmp_router.p4's and ecn.p4's
 *   hash (what the fabric's router does today).
 *   seed s != 0: h = crc32(fields), then ((h ^ s) * 0x9E3779B1) mod 2^32, and its top 16 bits
 *   mod count. A CRC with a different initial value or a prefix only XORs a constant into the
 *   result, which for a power-of-two count renames the buckets without changing which flows
 *   share one; the multiplication after the XOR does change that, so each seed is another
 *   draw of collisions.
 *
 * Routes, headers, egress (smac, ECN marking): lb_routes.p4h and lb_common.p4h.
 */
#include "lb_common.p4h"

control MyIngress(inout headers hdr,
                  inout metadata meta,
                  inout standard_metadata_t standard_metadata) {

#include "lb_routes.p4h"

    bit<32> hash_seed = 0;
    bit<8>  hash_fields = 0x1F;

    action set_hash(bit<32> seed, bit<8> fields) {
        hash_seed = seed;
        hash_fields = fields;
    }

    table hash_config {
        actions = {
            set_hash;
        }
        default_action = set_hash(0, 0x1F);
    }

    apply {
        if (!hdr.ipv4.isValid()) {
            drop();
        } else if (standard_metadata.checksum_error == 1 || hdr.ipv4.ttl <= 1) {
            drop();
        } else {
            ipv4_lpm.apply();
            if (meta.use_ecmp == 1) {
                hash_config.apply();
                ip4Addr_t src = 0;
                ip4Addr_t dst = 0;
                bit<8> proto = 0;
                bit<16> sport = 0;
                bit<16> dport = 0;
                if ((hash_fields & 1) != 0) { src = hdr.ipv4.srcAddr; }
                if ((hash_fields & 2) != 0) { dst = hdr.ipv4.dstAddr; }
                if ((hash_fields & 4) != 0) { proto = hdr.ipv4.protocol; }
                if ((hash_fields & 8) != 0) { sport = meta.l4_src; }
                if ((hash_fields & 16) != 0) { dport = meta.l4_dst; }
                if (hash_seed == 0) {
                    hash(meta.ecmp_select, HashAlgorithm.crc32, (bit<16>)0,
                         { src, dst, proto, sport, dport }, meta.ecmp_count);
                } else {
                    bit<32> h;
                    hash(h, HashAlgorithm.crc32, 32w0, { src, dst, proto, sport, dport }, 64w0x100000000);
                    bit<32> mixed = (h ^ hash_seed) * 32w0x9E3779B1;
                    hash(meta.ecmp_select, HashAlgorithm.identity, (bit<16>)0, { mixed[31:16] }, meta.ecmp_count);
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
