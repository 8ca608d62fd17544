// Names are scoped as p4c scopes them: the program's parser `p`, control `c` and header `hdr`
// share names with parameters of v1model.p4 and core.p4 declared before them; a local, an
// action, a table and a parser state may take a type's name, which they shadow in their scope.
#include <core.p4>
#include <v1model.p4>

header hdr { bit<8> a; bit<8> b; }
header t { bit<8> v; }
struct headers { hdr h; t x; }
struct metadata { bit<8> m; }

parser p(packet_in pkt, out headers hdrs, inout metadata meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdrs.h); transition t; }
    state t { pkt.extract(hdrs.x); transition accept; }
}
control vc(inout headers hdrs, inout metadata meta) { apply { } }
control c(inout headers hdrs, inout metadata meta, inout standard_metadata_t sm) {
    action hdr(bit<8> v) { hdrs.x.v = v; }
    table t {
        key = { hdrs.h.a : exact; }
        actions = { hdr; NoAction; }
        default_action = NoAction();
    }
    apply {
        sm.egress_spec = 1;
        t.apply();
        bit<8> p = hdrs.h.b + 1;
        hdrs.h.b = p;
    }
}
control e(inout headers hdrs, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control cc(inout headers hdrs, inout metadata meta) { apply { } }
control d(packet_out pkt, in headers hdrs) { apply { pkt.emit(hdrs.h); pkt.emit(hdrs.x); } }
V1Switch(p(), vc(), c(), e(), cc(), d()) main;
