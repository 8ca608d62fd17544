// Generic headers and structs: each use with type arguments makes a type of its own, with the
// arguments in place of the parameters; the same arguments give the same type.
#include <core.p4>
#include <v1model.p4>

header pair_h<T> { T first; T second; }
struct tagged<T, U> { T value; U tag; }
struct headers { pair_h<bit<8>> small; pair_h<bit<16>> big; }
struct metadata { tagged<bit<16>, bool> m; }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.small); pkt.extract(hdr.big); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        tagged<bit<16>, bool> t = { value = hdr.big.first + (bit<16>)hdr.small.first, tag = true };
        meta.m = t;
        if (meta.m.tag) { hdr.big.second = meta.m.value; }
        pair_h<bit<8>> copy = hdr.small;
        hdr.small.second = copy.first;
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.small); pkt.emit(hdr.big); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
