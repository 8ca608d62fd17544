/*
 * xdp_model.p4 -- the XDP switch architecture as bundled with dataplane.
 *
 * Written for this project after p4c's eBPF back end (target xdp): a parser, a switch
 * control that chooses an xdp_action for the packet, and a deparser that writes the
 * packet back. The ebpfFilter package stays available (XDP can run a filter too).
 */

#ifndef _XDP_MODEL_P4
#define _XDP_MODEL_P4

#include <core.p4>
#include <ebpf_model.p4>

/* What becomes of the packet (the kernel's codes, in this order). */
enum xdp_action {
    XDP_ABORTED,    /* an error: the packet is dropped */
    XDP_DROP,       /* dropped */
    XDP_PASS,       /* handed to the host's network stack */
    XDP_TX,         /* sent back out of the interface it came in on */
    XDP_REDIRECT    /* sent out of output_port */
}

struct xdp_input {
    bit<32> input_port;
}

struct xdp_output {
    xdp_action output_action;
    bit<32> output_port;
}

/* The IPv4 header checksum over the header's fields (options not included). */
extern bit<16> ebpf_ipv4_checksum(in bit<4> version, in bit<4> ihl, in bit<8> diffserv,
                                  in bit<16> totalLen, in bit<16> identification, in bit<3> flags,
                                  in bit<13> fragOffset, in bit<8> ttl, in bit<8> protocol,
                                  in bit<32> srcAddr, in bit<32> dstAddr);

/* Incremental checksum update (RFC 1624) for a 16-bit or a 32-bit field. */
extern bit<16> csum_replace2(in bit<16> csum, in bit<16> old, in bit<16> new);
extern bit<16> csum_replace4(in bit<16> csum, in bit<32> old, in bit<32> new);

extern bit<32> BPF_PERF_EVENT_OUTPUT();
/* The clock in nanoseconds (truncated to 32 bits). */
extern bit<32> BPF_KTIME_GET_NS();

parser xdp_parse<H>(packet_in packet, out H headers);
control xdp_switch<H>(inout H headers, in xdp_input imd, out xdp_output omd);
control xdp_deparse<H>(in H headers, packet_out packet);

package xdp<H>(xdp_parse<H> p, xdp_switch<H> s, xdp_deparse<H> d);

#endif
