/* A PNA v0.7 program: the 3-block PNA_NIC(main parser, main control, main deparser), no
 * pre-control, and only v0.7 metadata (input_port, parser_error, is_net_port; no direction).
 * In the style of the PNA spec's L2 one-table demo, written for these tests:
 *  - L2_fwd: dst MAC -> send_to_port(port), else drop; a DirectCounter counts its entries.
 *  - The main control rewrites eth.src to a MAC that says which side the packet came from
 *    (SelectByDirection with v0.7's bool selector), so a mirror copy taken after the main
 *    control (POST_MODIFY) differs from the packet as received (PRE_MODIFY).
 *  - mirror_sel: input port -> mirror_packet(slot, session); a second slot mirrors every
 *    packet with ether type 0x88b6 to session 9.
 *  - An ether type 0x88b5 packet carries a 2-byte tag; cut short, the parser error it gets
 *    makes the main control drop the packet (but the mirror tables still run).
 */
#include <core.p4>
#include <pna.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header tag_t { bit<16> value; }
struct headers_t { ethernet_t eth; tag_t tag; }
struct meta_t { }

parser MainParserImpl(packet_in pkt, out headers_t hdr, inout meta_t meta,
                      in pna_main_parser_input_metadata_t istd) {
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etype) { 0x88b5: parse_tag; default: accept; }
    }
    state parse_tag { pkt.extract(hdr.tag); transition accept; }
}

control MainControlImpl(inout headers_t hdr, inout meta_t meta,
                        in pna_main_input_metadata_t istd, inout pna_main_output_metadata_t ostd) {
    DirectCounter<bit<64>>(PNA_CounterType_t.PACKETS_AND_BYTES) fwd_count;

    action L2_send_to_port(PortId_t port_id) {
        fwd_count.count();
        send_to_port(port_id);
    }
    action drop() {
        fwd_count.count();
        drop_packet();
    }
    table L2_fwd {
        key = { hdr.eth.dst: exact; }
        actions = { L2_send_to_port; drop; }
        default_action = drop;
        pna_direct_counter = fwd_count;
    }

    action mirror_to(MirrorSlotId_t slot, MirrorSessionId_t session) {
        mirror_packet(slot, session);
    }
    table mirror_sel {
        key = { istd.input_port: exact; }
        actions = { mirror_to; NoAction; }
        default_action = NoAction;
    }

    apply {
        if (istd.parser_error != error.NoError) {
            drop_packet();
        } else {
            hdr.eth.src = SelectByDirection(is_net_port(istd.input_port),
                                            48w0x0a0000000001, 48w0x0b0000000001);
            L2_fwd.apply();
        }
        mirror_sel.apply();
        if (hdr.eth.etype == 0x88b6) {
            mirror_packet((MirrorSlotId_t)3, (MirrorSessionId_t)9);
        }
    }
}

control MainDeparserImpl(packet_out pkt, in headers_t hdr, in meta_t meta,
                         in pna_main_output_metadata_t ostd) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.tag); }
}

PNA_NIC(MainParserImpl(), MainControlImpl(), MainDeparserImpl()) main;
