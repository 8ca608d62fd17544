/*
 * vxlan_dpu.p4 -- a VXLAN tunnel endpoint (VTEP, RFC 7348) on a DPU, for the P4 Portable NIC
 * Architecture (pna.p4, PNA_NIC). The DPU sits between a server's tenants (host ports, one
 * tenant per port) and the server's leaf switch (network ports). One program serves every
 * DPU: the DPU's own addresses come from the control plane (table vtep_config).
 *
 * Ports. Direction is PNA's: packets from a network port go NET_TO_HOST, all others
 * HOST_TO_NET. In the emulator's default 4-port NIC, ports 0 and 1 are network ports and
 * ports 2 and 3 host ports (PnaNic(net_ports=...) chooses others).
 *
 * HOST_TO_NET (encapsulation)
 *   1. tenant_of_port   key istd.input_port (exact) -> set_tenant(vni). Miss: drop,
 *                       count dropped_unknown_tenant.
 *   2. The inner destination is the inner IPv4 destination address, or the target protocol
 *      address of an ARP frame (so ARP requests are unicast to the VTEP that hosts the
 *      address: no flooding). IPv4 rather than MAC because tenants' MACs and IPs may
 *      overlap across VNIs; the key pairs it with the VNI. Other inner EtherTypes: drop,
 *      count dropped_unknown_dest.
 *   3. remote_vtep      key (meta.vni, meta.inner_dst) (exact, exact)
 *                       -> set_remote_vtep(remote_ip, nexthop_mac, port): the remote VTEP's
 *                       IPv4 address, the outer destination MAC (the leaf's MAC) and the
 *                       network port to send on.
 *      On a miss, mac_learn (below) is tried with (vni, inner destination MAC); a learned
 *      entry sends to the learned VTEP through the default gateway of vtep_config.
 *      Both miss: drop, count dropped_unknown_dest.
 *   4. Push outer Ethernet (dst nexthop_mac, src vtep_mac, type 0x0800), IPv4 (version 4,
 *      ihl 5, DSCP/ECN copied from an inner IPv4 header else 0, total length = inner frame
 *      + 36, identification 0, flags 0, TTL 64, protocol 17, src vtep_ip, dst remote_ip,
 *      header checksum computed with InternetChecksum), UDP (source port = 49152 +
 *      hash(inner 5-tuple) % 16384, destination 4789, length = inner frame + 16,
 *      checksum 0) and VXLAN (flags 0x08, VNI, reserved 0): 50 bytes. Count encapsulated.
 *      The 5-tuple is (src IP, dst IP, protocol, TCP/UDP source port, destination port) of
 *      the inner IPv4 header (ports 0 when there is no TCP/UDP header or the packet is a
 *      non-first fragment or has options), or (ARP sender, target, 0, 0, 0), hashed as
 *      13 bytes in that order with Hash(TARGET_DEFAULT), which the emulator runs as CRC-32.
 *
 * NET_TO_HOST (decapsulation); checks in this order, each failure drops and counts:
 *   parser error (truncated headers)                            dropped_malformed
 *   not IPv4 (ihl 5, offset 0) / UDP / destination port 4789    dropped_not_vxlan
 *     (this includes ARP, ICMP and any other traffic for the DPU itself: the DPU
 *     answers nothing, so the leaf needs a static ARP entry for the VTEP address)
 *   outer IPv4 version != 4, bad header checksum, more-fragments set, IPv4 total length
 *     != frame length - 14, or UDP length != IPv4 total length - 20   dropped_malformed
 *   outer destination IP is not this VTEP (vtep_config)         dropped_not_for_vtep
 *   VXLAN I flag (0x08) clear                                   dropped_no_i_flag
 *   vni_to_port         key meta.vni (exact) -> to_host(port); miss   dropped_unknown_vni
 *   Otherwise the outer 50 bytes are removed and the inner frame leaves on the tenant's
 *   host port, byte for byte, except RFC 6040 ECN propagation: an outer CE mark on an
 *   ECN-capable inner IPv4 packet sets the inner ECN field to CE (inner checksum updated
 *   incrementally). An outer CE over a Not-ECT inner packet is delivered unchanged (RFC 6040
 *   would drop it). Count decapsulated. Other VXLAN flag and reserved bits are ignored,
 *   as RFC 7348 asks of receivers.
 *   Learning: the inner source MAC of each decapsulated frame is learned with PNA's
 *   add-on-miss into mac_learn (key (meta.vni, meta.learn_mac) -> learned_vtep(remote_ip),
 *   the outer source IP); no aging or moves (an entry, once learned, stays until the control
 *   plane removes it).
 *
 * vtep_config (no key; its default action is the configuration):
 *   set_vtep(vtep_ip, vtep_mac, gateway_mac, uplink_port): this DPU's VTEP address and MAC,
 *   and the next hop (leaf MAC, network port) for sends to learned VTEPs. Until it is set
 *   the default vtep_unconfigured() drops every packet, counted in dropped_unconfigured.
 *
 * Counters (Counter<bit<32>, bit<32>>(1, PACKETS_AND_BYTES), index 0; bytes are those of
 * the packet as it arrived): encapsulated, decapsulated, dropped_unconfigured,
 * dropped_unknown_tenant, dropped_unknown_dest, dropped_malformed, dropped_not_vxlan,
 * dropped_not_for_vtep, dropped_no_i_flag, dropped_unknown_vni.
 *
 * Control plane: tables and actions as named above, in MainControlImpl (e.g. runtime JSON
 * "MainControlImpl.remote_vtep" with match {"meta.vni": 7, "meta.inner_dst": "10.0.0.2"});
 * programs/vxlan_dpu.json configures dpu1 of a two-DPU example (see its test,
 * tests/programs/test_vxlan_dpu.py).
 *
 * A host frame whose headers are cut short (a parser error) is dropped the same way, into
 * dropped_malformed.
 *
 * Written for p4c's pna.p4 as well as the emulator's: the direction comes from
 * istd.direction, ports only from PortId_t action parameters (PortId_t is a `type` in
 * p4c's pna.p4), and the frame length from packet_in.length() (PNA has no packet-length
 * metadata).
 */
#include <core.p4>
#include <pna.p4>

const bit<16> ETHERTYPE_IPV4 = 0x0800;
const bit<16> ETHERTYPE_ARP  = 0x0806;
const bit<8>  IPPROTO_TCP    = 6;
const bit<8>  IPPROTO_UDP    = 17;
const bit<16> VXLAN_PORT     = 4789;
const bit<8>  VXLAN_FLAG_I   = 0x08;
const bit<16> ENTROPY_BASE   = 49152;   // RFC 7348: source port in the dynamic range
const bit<16> ENTROPY_RANGE  = 16384;   // 49152 .. 65535
const bit<8>  OUTER_TTL      = 64;
const ExpireTimeProfileId_t LEARN_PROFILE = (ExpireTimeProfileId_t) 0;

header ethernet_t {
    bit<48> dst_addr;
    bit<48> src_addr;
    bit<16> ether_type;
}

header ipv4_t {
    bit<4>  version;
    bit<4>  ihl;
    bit<6>  dscp;
    bit<2>  ecn;
    bit<16> total_len;
    bit<16> identification;
    bit<3>  flags;
    bit<13> frag_offset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdr_checksum;
    bit<32> src_addr;
    bit<32> dst_addr;
}

header arp_t {
    bit<16> htype;
    bit<16> ptype;
    bit<8>  hlen;
    bit<8>  plen;
    bit<16> oper;
    bit<48> sha;
    bit<32> spa;
    bit<48> tha;
    bit<32> tpa;
}

header tcp_t {
    bit<16> src_port;
    bit<16> dst_port;
    bit<32> seq_no;
    bit<32> ack_no;
    bit<4>  data_offset;
    bit<4>  res;
    bit<8>  flags;
    bit<16> window;
    bit<16> checksum;
    bit<16> urgent_ptr;
}

header udp_t {
    bit<16> src_port;
    bit<16> dst_port;
    bit<16> length;
    bit<16> checksum;
}

header vxlan_t {
    bit<8>  flags;
    bit<24> reserved;
    bit<24> vni;
    bit<8>  reserved2;
}

/* Headers in wire order. The tun_* headers are pushed by encapsulation; the others are what
 * arrived: a host's frame (eth, ipv4 or arp, tcp or udp), or from the network the outer
 * eth/ipv4/udp, the vxlan header and the inner frame's Ethernet (and IPv4) header. */
struct headers_t {
    ethernet_t tun_eth;
    ipv4_t     tun_ipv4;
    udp_t      tun_udp;
    vxlan_t    tun_vxlan;
    ethernet_t eth;
    ipv4_t     ipv4;
    arp_t      arp;
    tcp_t      tcp;
    udp_t      udp;
    vxlan_t    vxlan;
    ethernet_t inner_eth;
    ipv4_t     inner_ipv4;
}

struct learned_vtep_params_t {
    bit<32> remote_ip;
}

struct meta_t {
    bit<16>  frame_len;      // bytes of the frame as it arrived
    bool     vtep_ok;        // vtep_config has been set
    bit<32>  vtep_ip;
    bit<48>  vtep_mac;
    bit<48>  gateway_mac;
    PortId_t uplink_port;
    bit<24>  vni;
    bit<32>  inner_dst;      // the inner IPv4 destination (or ARP target address)
    bit<32>  remote_ip;      // outer destination (encap) / outer source (decap, to learn)
    bit<48>  nexthop_mac;
    PortId_t out_port;
    bit<48>  learn_mac;      // mac_learn's key: inner dst MAC (encap), inner src MAC (decap)
    bool     do_learn;       // a miss in mac_learn adds the key (decap only)
    bit<32>  h_src;          // the inner flow, hashed into the outer UDP source port
    bit<32>  h_dst;
    bit<8>   h_proto;
    bit<16>  h_sport;
    bit<16>  h_dport;
    bit<16>  entropy;
}

parser MainParserImpl(packet_in pkt, out headers_t hdr, inout meta_t meta,
                      in pna_main_parser_input_metadata_t istd) {
    state start {
        meta.frame_len = (bit<16>) pkt.length();
        pkt.extract(hdr.eth);
        transition select(hdr.eth.ether_type) {
            ETHERTYPE_IPV4: parse_ipv4;
            ETHERTYPE_ARP: parse_arp;
            default: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        /* Ports only from a first (or unfragmented) packet without IPv4 options. */
        transition select(hdr.ipv4.ihl, hdr.ipv4.frag_offset, hdr.ipv4.protocol) {
            (4w5, 13w0, IPPROTO_TCP): parse_tcp;
            (4w5, 13w0, IPPROTO_UDP): parse_udp;
            default: accept;
        }
    }
    state parse_arp {
        pkt.extract(hdr.arp);
        transition accept;
    }
    state parse_tcp {
        pkt.extract(hdr.tcp);
        transition accept;
    }
    state parse_udp {
        pkt.extract(hdr.udp);
        transition select(hdr.udp.dst_port) {
            VXLAN_PORT: parse_vxlan;
            default: accept;
        }
    }
    state parse_vxlan {
        pkt.extract(hdr.vxlan);
        pkt.extract(hdr.inner_eth);
        transition select(hdr.inner_eth.ether_type) {
            ETHERTYPE_IPV4: parse_inner_ipv4;
            default: accept;
        }
    }
    state parse_inner_ipv4 {
        pkt.extract(hdr.inner_ipv4);
        transition accept;
    }
}

control PreControlImpl(in headers_t hdr, inout meta_t meta,
                       in pna_pre_input_metadata_t istd, inout pna_pre_output_metadata_t ostd) {
    apply { }
}

control MainControlImpl(inout headers_t hdr, inout meta_t meta,
                        in pna_main_input_metadata_t istd, inout pna_main_output_metadata_t ostd) {
    Counter<bit<32>, bit<32>>(1, PNA_CounterType_t.PACKETS_AND_BYTES) encapsulated;
    Counter<bit<32>, bit<32>>(1, PNA_CounterType_t.PACKETS_AND_BYTES) decapsulated;
    Counter<bit<32>, bit<32>>(1, PNA_CounterType_t.PACKETS_AND_BYTES) dropped_unconfigured;
    Counter<bit<32>, bit<32>>(1, PNA_CounterType_t.PACKETS_AND_BYTES) dropped_unknown_tenant;
    Counter<bit<32>, bit<32>>(1, PNA_CounterType_t.PACKETS_AND_BYTES) dropped_unknown_dest;
    Counter<bit<32>, bit<32>>(1, PNA_CounterType_t.PACKETS_AND_BYTES) dropped_malformed;
    Counter<bit<32>, bit<32>>(1, PNA_CounterType_t.PACKETS_AND_BYTES) dropped_not_vxlan;
    Counter<bit<32>, bit<32>>(1, PNA_CounterType_t.PACKETS_AND_BYTES) dropped_not_for_vtep;
    Counter<bit<32>, bit<32>>(1, PNA_CounterType_t.PACKETS_AND_BYTES) dropped_no_i_flag;
    Counter<bit<32>, bit<32>>(1, PNA_CounterType_t.PACKETS_AND_BYTES) dropped_unknown_vni;
    Hash<bit<16>>(PNA_HashAlgorithm_t.TARGET_DEFAULT) flow_hash;
    InternetChecksum() ck;

    /* ---- configuration ---- */
    action set_vtep(bit<32> vtep_ip, bit<48> vtep_mac, bit<48> gateway_mac, PortId_t uplink_port) {
        meta.vtep_ok = true;
        meta.vtep_ip = vtep_ip;
        meta.vtep_mac = vtep_mac;
        meta.gateway_mac = gateway_mac;
        meta.uplink_port = uplink_port;
    }
    action vtep_unconfigured() {
        meta.vtep_ok = false;
    }
    table vtep_config {
        actions = { set_vtep; vtep_unconfigured; }
        default_action = vtep_unconfigured();
    }

    /* ---- host to net ---- */
    action set_tenant(bit<24> vni) {
        meta.vni = vni;
    }
    table tenant_of_port {
        key = { istd.input_port: exact; }
        actions = { set_tenant; NoAction; }
        default_action = NoAction();
        size = 256;
    }

    action set_remote_vtep(bit<32> remote_ip, bit<48> nexthop_mac, PortId_t port) {
        meta.remote_ip = remote_ip;
        meta.nexthop_mac = nexthop_mac;
        meta.out_port = port;
    }
    table remote_vtep {
        key = {
            meta.vni: exact;
            meta.inner_dst: exact;
        }
        actions = { set_remote_vtep; NoAction; }
        default_action = NoAction();
        size = 65536;
    }

    /* ---- learning: (VNI, inner MAC) -> remote VTEP, added by the data plane on decap ---- */
    action learned_vtep(bit<32> remote_ip) {
        meta.remote_ip = remote_ip;
    }
    action learn_vtep() {
        if (meta.do_learn) {
            learned_vtep_params_t params;
            params.remote_ip = meta.remote_ip;
            add_entry(action_name = "learned_vtep", action_params = params,
                      expire_time_profile_id = LEARN_PROFILE);
        }
    }
    table mac_learn {
        key = {
            meta.vni: exact;
            meta.learn_mac: exact;
        }
        actions = { learned_vtep; learn_vtep; }
        add_on_miss = true;
        default_action = learn_vtep();
        size = 65536;
    }

    /* ---- net to host ---- */
    action to_host(PortId_t port) {
        meta.out_port = port;
    }
    table vni_to_port {
        key = { meta.vni: exact; }
        actions = { to_host; NoAction; }
        default_action = NoAction();
        size = 4096;
    }

    apply {
        vtep_config.apply();
        if (!meta.vtep_ok) {
            dropped_unconfigured.count(0);
            drop_packet();
        } else if (istd.parser_error != error.NoError) {
            dropped_malformed.count(0);
            drop_packet();
        } else if (istd.direction == PNA_Direction_t.HOST_TO_NET) {
            /* ===== encapsulation ===== */
            if (!tenant_of_port.apply().hit) {
                dropped_unknown_tenant.count(0);
                drop_packet();
                return;
            }
            meta.h_proto = 0;
            meta.h_sport = 0;
            meta.h_dport = 0;
            if (hdr.ipv4.isValid()) {
                meta.inner_dst = hdr.ipv4.dst_addr;
                meta.h_src = hdr.ipv4.src_addr;
                meta.h_dst = hdr.ipv4.dst_addr;
                meta.h_proto = hdr.ipv4.protocol;
                if (hdr.tcp.isValid()) {
                    meta.h_sport = hdr.tcp.src_port;
                    meta.h_dport = hdr.tcp.dst_port;
                } else if (hdr.udp.isValid()) {
                    meta.h_sport = hdr.udp.src_port;
                    meta.h_dport = hdr.udp.dst_port;
                }
            } else if (hdr.arp.isValid()) {
                meta.inner_dst = hdr.arp.tpa;
                meta.h_src = hdr.arp.spa;
                meta.h_dst = hdr.arp.tpa;
            } else {
                dropped_unknown_dest.count(0);
                drop_packet();
                return;
            }
            if (!remote_vtep.apply().hit) {
                meta.do_learn = false;
                meta.learn_mac = hdr.eth.dst_addr;
                if (mac_learn.apply().hit) {
                    meta.nexthop_mac = meta.gateway_mac;
                    meta.out_port = meta.uplink_port;
                } else {
                    dropped_unknown_dest.count(0);
                    drop_packet();
                    return;
                }
            }
            meta.entropy = flow_hash.get_hash(ENTROPY_BASE,
                {meta.h_src, meta.h_dst, meta.h_proto, meta.h_sport, meta.h_dport}, ENTROPY_RANGE);

            hdr.tun_eth.setValid();
            hdr.tun_eth.dst_addr = meta.nexthop_mac;
            hdr.tun_eth.src_addr = meta.vtep_mac;
            hdr.tun_eth.ether_type = ETHERTYPE_IPV4;

            hdr.tun_ipv4.setValid();
            hdr.tun_ipv4.version = 4;
            hdr.tun_ipv4.ihl = 5;
            if (hdr.ipv4.isValid()) {
                hdr.tun_ipv4.dscp = hdr.ipv4.dscp;   // RFC 2983 uniform DSCP, RFC 6040 ECN copy
                hdr.tun_ipv4.ecn = hdr.ipv4.ecn;
            } else {
                hdr.tun_ipv4.dscp = 0;
                hdr.tun_ipv4.ecn = 0;
            }
            hdr.tun_ipv4.total_len = meta.frame_len + 36;   // + IPv4 20, UDP 8, VXLAN 8
            hdr.tun_ipv4.identification = 0;
            hdr.tun_ipv4.flags = 0;
            hdr.tun_ipv4.frag_offset = 0;
            hdr.tun_ipv4.ttl = OUTER_TTL;
            hdr.tun_ipv4.protocol = IPPROTO_UDP;
            hdr.tun_ipv4.src_addr = meta.vtep_ip;
            hdr.tun_ipv4.dst_addr = meta.remote_ip;
            ck.clear();
            ck.add({hdr.tun_ipv4.version, hdr.tun_ipv4.ihl, hdr.tun_ipv4.dscp, hdr.tun_ipv4.ecn,
                    hdr.tun_ipv4.total_len, hdr.tun_ipv4.identification,
                    hdr.tun_ipv4.flags, hdr.tun_ipv4.frag_offset,
                    hdr.tun_ipv4.ttl, hdr.tun_ipv4.protocol,
                    hdr.tun_ipv4.src_addr, hdr.tun_ipv4.dst_addr});
            hdr.tun_ipv4.hdr_checksum = ck.get();

            hdr.tun_udp.setValid();
            hdr.tun_udp.src_port = meta.entropy;
            hdr.tun_udp.dst_port = VXLAN_PORT;
            hdr.tun_udp.length = meta.frame_len + 16;       // + UDP 8, VXLAN 8
            hdr.tun_udp.checksum = 0;

            hdr.tun_vxlan.setValid();
            hdr.tun_vxlan.flags = VXLAN_FLAG_I;
            hdr.tun_vxlan.reserved = 0;
            hdr.tun_vxlan.vni = meta.vni;
            hdr.tun_vxlan.reserved2 = 0;

            encapsulated.count(0);
            send_to_port(meta.out_port);
        } else {
            /* ===== decapsulation ===== */
            if (!hdr.vxlan.isValid()) {
                dropped_not_vxlan.count(0);
                drop_packet();
                return;
            }
            ck.clear();
            ck.add({hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.dscp, hdr.ipv4.ecn,
                    hdr.ipv4.total_len, hdr.ipv4.identification,
                    hdr.ipv4.flags, hdr.ipv4.frag_offset,
                    hdr.ipv4.ttl, hdr.ipv4.protocol, hdr.ipv4.hdr_checksum,
                    hdr.ipv4.src_addr, hdr.ipv4.dst_addr});
            if (hdr.ipv4.version != 4 || ck.get() != 0 || hdr.ipv4.flags[0:0] == 1 ||
                    hdr.ipv4.total_len != meta.frame_len - 14 ||
                    hdr.udp.length != hdr.ipv4.total_len - 20) {
                dropped_malformed.count(0);
                drop_packet();
                return;
            }
            if (hdr.ipv4.dst_addr != meta.vtep_ip) {
                dropped_not_for_vtep.count(0);
                drop_packet();
                return;
            }
            if ((hdr.vxlan.flags & VXLAN_FLAG_I) == 0) {
                dropped_no_i_flag.count(0);
                drop_packet();
                return;
            }
            meta.vni = hdr.vxlan.vni;
            if (!vni_to_port.apply().hit) {
                dropped_unknown_vni.count(0);
                drop_packet();
                return;
            }
            meta.remote_ip = hdr.ipv4.src_addr;
            meta.learn_mac = hdr.inner_eth.src_addr;
            meta.do_learn = true;
            mac_learn.apply();

            /* RFC 6040 normal mode: outer CE marks an ECN-capable inner packet CE. */
            if (hdr.ipv4.ecn == 3 && hdr.inner_ipv4.isValid() && hdr.inner_ipv4.ecn != 0
                    && hdr.inner_ipv4.ecn != 3) {
                ck.clear();
                ck.set_state(~hdr.inner_ipv4.hdr_checksum);
                ck.subtract({hdr.inner_ipv4.version, hdr.inner_ipv4.ihl,
                             hdr.inner_ipv4.dscp, hdr.inner_ipv4.ecn});
                hdr.inner_ipv4.ecn = 3;
                ck.add({hdr.inner_ipv4.version, hdr.inner_ipv4.ihl,
                        hdr.inner_ipv4.dscp, hdr.inner_ipv4.ecn});
                hdr.inner_ipv4.hdr_checksum = ck.get();
            }

            hdr.eth.setInvalid();
            hdr.ipv4.setInvalid();
            hdr.udp.setInvalid();
            hdr.vxlan.setInvalid();
            decapsulated.count(0);
            send_to_port(meta.out_port);
        }
    }
}

control MainDeparserImpl(packet_out pkt, in headers_t hdr, in meta_t meta,
                         in pna_main_output_metadata_t ostd) {
    apply {
        pkt.emit(hdr.tun_eth);
        pkt.emit(hdr.tun_ipv4);
        pkt.emit(hdr.tun_udp);
        pkt.emit(hdr.tun_vxlan);
        pkt.emit(hdr.eth);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.arp);
        pkt.emit(hdr.tcp);
        pkt.emit(hdr.udp);
        pkt.emit(hdr.vxlan);
        pkt.emit(hdr.inner_eth);
        pkt.emit(hdr.inner_ipv4);
    }
}

PNA_NIC(MainParserImpl(), PreControlImpl(), MainControlImpl(), MainDeparserImpl()) main;
