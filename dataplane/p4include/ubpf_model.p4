/*
 * ubpf_model.p4 -- the uBPF architecture (p4c-ubpf, userspace BPF in Open vSwitch) as
 * bundled with dataplane.
 *
 * Written for this project after p4c's uBPF back end: parser, pipeline control and
 * deparser. Packets pass unless mark_to_drop() is called (mark_to_pass() undoes it);
 * a passed packet leaves on std.output_port. UBPF_MODEL_VERSION 20200515 (the default)
 * adds the standard_metadata parameter to the parser and the pipeline; an older
 * version leaves it out.
 */

#ifndef _UBPF_MODEL_P4_
#define _UBPF_MODEL_P4_

#include <core.p4>

#ifndef UBPF_MODEL_VERSION
#define UBPF_MODEL_VERSION 20200515
#endif

const bit<32> __ubpf_model_version = UBPF_MODEL_VERSION;

#if UBPF_MODEL_VERSION >= 20200515
enum ubpf_action {
    ABORT,
    DROP,
    PASS,
    REDIRECT
}

struct standard_metadata {
    bit<32>     input_port;
    bit<32>     packet_length;
    ubpf_action output_action;
    bit<32>     output_port;
    bool        clone;
    bit<32>     clone_port;
}
#endif

/* Forwarding decision, kept outside the program's state: drop, or pass (the default). */
extern void mark_to_drop();
extern void mark_to_pass();

/* An array of `size` values of type T (bit<W>) indexed by S; a read out of range gives 0. */
extern Register<T, S> {
    Register(bit<32> size);
    T read(in S index);
    void write(in S index, in T value);
}

/* The clock in nanoseconds. */
extern bit<48> ubpf_time_get_ns();

/* Cut the deparsed packet to at most `len` bytes (no fewer than 14). */
extern void truncate(in bit<32> len);

enum HashAlgorithm {
    lookup3
}

/* Hash of the fields in `data` (at most 64 bits of them) with the given algorithm. */
extern void hash<D>(out bit<32> result, in HashAlgorithm algo, in D data);

/* Incremental checksum update (RFC 1624) for a 16-bit or a 32-bit field. */
extern bit<16> csum_replace2(in bit<16> csum, in bit<16> old, in bit<16> new);
extern bit<16> csum_replace4(in bit<16> csum, in bit<32> old, in bit<32> new);

#if UBPF_MODEL_VERSION >= 20200515
parser parse<H, M>(packet_in packet, out H headers, inout M meta, inout standard_metadata std);
control pipeline<H, M>(inout H headers, inout M meta, inout standard_metadata std);
#else
parser parse<H, M>(packet_in packet, out H headers, inout M meta);
control pipeline<H, M>(inout H headers, inout M meta);
#endif

/* Only emit() calls belong in the deparser. */
@deparser
control deparser<H>(packet_out b, in H headers);

package ubpf<H, M>(parse<H, M> prs, pipeline<H, M> p, deparser<H> dprs);

#endif
