// ebpfFilter with an LPM table (its STF values in the eBPF driver's host byte order), a
// keyless array_table whose default action the control plane sets, and an `out bool` the
// filter leaves unset for some packets (it starts false: dropped).
#include <core.p4>
#include <ebpf_model.p4>

header probe_t { bit<32> addr; bit<8> mode; }
struct headers_t { probe_t p; }

parser prs(packet_in pkt, out headers_t h) {
    state start { pkt.extract(h.p); transition accept; }
}

control pipe(inout headers_t h, out bool accept) {
    action allow() { accept = true; }
    action deny() { accept = false; }
    action by_mode(bit<8> wanted) { accept = h.p.mode == wanted; }
    table prefixes {
        key = { h.p.addr : lpm; }
        actions = { allow; deny; }
        implementation = array_table(16);   // an LPM table is a trie whatever is named
        default_action = deny;
    }
    table mode_check {
        actions = { by_mode; }
        implementation = array_table(1);
        default_action = by_mode(0);
    }
    apply {
        if (h.p.mode == 0xff) {
            return;                   // accept never written: false
        }
        if (h.p.mode == 0) {
            prefixes.apply();
        } else {
            mode_check.apply();
        }
    }
}

ebpfFilter(prs(), pipe()) main;
