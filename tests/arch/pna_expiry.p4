/* PNA table-entry expiry (tests/arch/test_pna_expiry.py): a connection table filled on a miss
 * by add_entry with expire time profile 1, whose hits restart the entry's timer or move it to
 * profile 2, as PNA's connection-tracking examples do.
 *  - packet: flow (1 byte), cmd (1 byte): 0 = hit only, 1 = restart_expire_timer(),
 *    2 = set_entry_expire_time(2)
 *  - a hit leaves on port 1, a miss (which adds the entry) on port 2
 *  - the table's pna_idle_timeout is AUTO_DELETE; notify_tbl is the same with NOTIFY_CONTROL,
 *    applied when flow >= 0x80 */
#include <core.p4>
#include <pna.p4>

header conn_t { bit<8> flow; bit<8> cmd; }
struct headers_t { conn_t conn; }
struct meta_t { }

parser MainParserImpl(packet_in pkt, out headers_t hdr, inout meta_t meta,
                      in pna_main_parser_input_metadata_t istd) {
    state start { pkt.extract(hdr.conn); transition accept; }
}

control MainControlImpl(inout headers_t hdr, inout meta_t meta,
                        in pna_main_input_metadata_t istd, inout pna_main_output_metadata_t ostd) {
    action hit() {
        if (hdr.conn.cmd == 1) {
            restart_expire_timer();
        } else if (hdr.conn.cmd == 2) {
            set_entry_expire_time((ExpireTimeProfileId_t)2);
        }
        send_to_port((PortId_t)1);
    }
    action miss() {
        add_entry("hit", {}, (ExpireTimeProfileId_t)1);
        send_to_port((PortId_t)2);
    }
    table conn_tbl {
        key = { hdr.conn.flow: exact; }
        actions = { @tableonly hit; @defaultonly miss; }
        add_on_miss = true;
        pna_idle_timeout = PNA_IdleTimeout_t.AUTO_DELETE;
        const default_action = miss;
    }
    table notify_tbl {
        key = { hdr.conn.flow: exact; }
        actions = { @tableonly hit; @defaultonly miss; }
        add_on_miss = true;
        pna_idle_timeout = PNA_IdleTimeout_t.NOTIFY_CONTROL;
        const default_action = miss;
    }
    table plain_tbl {
        key = { hdr.conn.flow: exact; }
        actions = { hit; NoAction; }
        default_action = NoAction;
    }
    apply {
        if (hdr.conn.flow == 0x7f) {
            plain_tbl.apply();
        } else if (hdr.conn.flow >= 0x80) {
            notify_tbl.apply();
        } else {
            conn_tbl.apply();
        }
    }
}

control MainDeparserImpl(packet_out pkt, in headers_t hdr, in meta_t meta,
                         in pna_main_output_metadata_t ostd) {
    apply { pkt.emit(hdr.conn); }
}

PNA_NIC(MainParserImpl(), MainControlImpl(), MainDeparserImpl()) main;
