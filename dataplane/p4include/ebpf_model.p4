/*
 * ebpf_model.p4 -- the eBPF packet-filter architecture (ebpfFilter) as bundled with dataplane.
 *
 * Written for this project after p4c's eBPF back end: a parser and a filter control;
 * the filter's `accept` output decides whether the packet is kept (passed on unchanged)
 * or dropped. There is no deparser: header writes in the filter do not change the
 * packet. Declarations have the names, types and parameter order programs written for
 * p4c-ebpf use, so they compile unchanged.
 */

#ifndef _EBPF_MODEL_P4_
#define _EBPF_MODEL_P4_

#include <core.p4>

/* An array of 32-bit counters indexed by a 32-bit index (an eBPF array map, or a hash
 * map when sparse). The data plane adds to them; the control plane reads them. */
extern CounterArray {
    CounterArray(bit<32> max_index, bool sparse);
    void increment(in bit<32> index);
    void add(in bit<32> index, in bit<32> value);
}

/* Table implementations (the table property `implementation`): an eBPF array map,
 * indexed by the key, or a hash map. An LPM table is a trie whatever is named. */
extern array_table {
    array_table(bit<32> size);
}

extern hash_table {
    hash_table(bit<32> size);
}

parser parse<H>(packet_in packet, out H headers);
control filter<H>(inout H headers, out bool accept);

package ebpfFilter<H>(parse<H> prs, filter<H> filt);

#endif
