// uBPF before UBPF_MODEL_VERSION 20200515: no standard_metadata. Packets pass (to port 0)
// unless mark_to_drop().
#include <core.p4>
#define UBPF_MODEL_VERSION 20200101
#include <ubpf_model.p4>

header b_t { bit<8> v; }
struct headers_t { b_t b; }
struct meta_t { bit<8> copy; }

parser prs(packet_in p, out headers_t h, inout meta_t m) {
    state start { p.extract(h.b); m.copy = h.b.v; transition accept; }
}

control pipe(inout headers_t h, inout meta_t m) {
    apply {
        if (m.copy == 0) {
            mark_to_drop();
        }
        h.b.v = m.copy + 1;
    }
}

control dprs(packet_out p, in headers_t h) {
    apply { p.emit(h.b); }
}

ubpf(prs(), pipe(), dprs()) main;
