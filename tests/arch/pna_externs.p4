/* PNA externs end to end: Hash, Counter, Meter, InternetChecksum.subtract, is_host_port,
 * and add_entry (add-on-miss, when etype is 0x9999: the first packet of a source MAC
 * learns it; later ones hit set_mark(7), which overwrites res.color). Every packet goes to port 3. */
#include <core.p4>
#include <pna.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header out_t { bit<16> hash16; bit<16> csum; bit<8> color; bit<8> host; }
struct headers_t { ethernet_t eth; out_t res; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, in pna_main_parser_input_metadata_t istd) {
    state start { pkt.extract(hdr.eth); transition accept; }
}

control Pre(in headers_t hdr, inout meta_t meta, in pna_pre_input_metadata_t istd,
            inout pna_pre_output_metadata_t ostd) {
    apply { }
}

control C(inout headers_t hdr, inout meta_t meta, in pna_main_input_metadata_t istd,
          inout pna_main_output_metadata_t ostd) {
    Hash<bit<16>>(PNA_HashAlgorithm_t.CRC32) h;
    Counter<bit<32>, bit<32>>(4, PNA_CounterType_t.PACKETS_AND_BYTES) cnt;
    Meter<bit<32>>(4, PNA_MeterType_t.PACKETS) m;
    InternetChecksum() ck;

    action set_mark(bit<8> v) { hdr.res.color = v; }
    action learn() { add_entry(action_name = "set_mark", action_params = {8w7}, expire_time_profile_id = 0); }
    table flows {
        key = { hdr.eth.src: exact; }
        actions = { set_mark; learn; }
        default_action = learn;
    }
    apply {
        cnt.count(istd.input_port);
        hdr.res.setValid();
        hdr.res.hash16 = h.get_hash({hdr.eth.src});
        ck.add({hdr.eth.dst, hdr.eth.src});
        ck.subtract({hdr.eth.dst});
        hdr.res.csum = ck.get();
        hdr.res.color = (m.execute(istd.input_port) == PNA_MeterColor_t.GREEN) ? 8w1 : 8w0;
        hdr.res.host = is_host_port(istd.input_port) ? 8w1 : 8w0;
        if (hdr.eth.etype == 0x9999) {
            flows.apply();
        }
        mirror_packet(8w1, 16w5);
        send_to_port((PortId_t)3);
    }
}

control D(packet_out pkt, in headers_t hdr, in meta_t meta, in pna_main_output_metadata_t ostd) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.res); }
}

PNA_NIC(P(), Pre(), C(), D()) main;
