// uBPF's deparser: the parsed bytes are replaced by the emitted headers (the head grows or
// shrinks), truncate() cuts the packet before the headers are written, and a header that no
// longer fits ends the deparser there; a parser reject passes the packet as received.
#include <core.p4>
#include <ubpf_model.p4>

header cmd_t { bit<8> op; bit<8> arg; }
header tag_t { bit<32> value; }
struct headers_t { cmd_t cmd; tag_t tag; }
struct meta_t { }

parser prs(packet_in p, out headers_t h, inout meta_t m, inout standard_metadata std) {
    state start {
        p.extract(h.cmd);
        transition select(h.cmd.op) {
            1: accept;          // push a tag
            2: tagged;          // pop the tag
            3: accept;          // truncate to arg bytes, then emit cmd and a tag
            default: reject;    // passes as received
        }
    }
    state tagged { p.extract(h.tag); transition accept; }
}

control pipe(inout headers_t h, inout meta_t m, inout standard_metadata std) {
    apply {
        if (h.cmd.op == 1 || h.cmd.op == 3) {
            h.tag.setValid();
            h.tag.value = 0xa1b2c3d4;
        } else if (h.cmd.op == 2) {
            h.tag.setInvalid();
        }
        if (h.cmd.op == 3) {
            truncate((bit<32>)h.cmd.arg);
        }
    }
}

control dprs(packet_out p, in headers_t h) {
    apply { p.emit(h.cmd); p.emit(h.tag); }
}

ubpf(prs(), pipe(), dprs()) main;
