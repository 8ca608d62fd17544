/*
 * v1model.p4 -- the v1model architecture (BMv2 simple_switch) as bundled with dataplane.
 *
 * Written for this project to declare the same names, types and parameter
 * directions as the v1model architecture that P4 programs for simple_switch
 * are written against: standard metadata, the stateful externs, the extern
 * functions and the six programmable blocks of the V1Switch package.
 *
 * Programs may define V1MODEL_VERSION before including this file. From
 * 20200408 on, ports have the type PortId_t and counter, meter and register
 * take the type of their index as a type parameter; before that, indices are
 * bit<32>.
 */

#ifndef _V1_MODEL_P4_
#define _V1_MODEL_P4_

#include <core.p4>

#ifndef V1MODEL_VERSION
#define V1MODEL_VERSION 20180101
#endif

match_kind {
    range,      /* value within [low, high] */
    optional,   /* exact value, or wildcard */
    selector    /* selects a member of an action_selector group */
}

const bit<32> __v1model_version = V1MODEL_VERSION;

#if V1MODEL_VERSION >= 20200408
typedef bit<9> PortId_t;
#endif

@metadata @name("standard_metadata")
struct standard_metadata_t {
#if V1MODEL_VERSION >= 20200408
    PortId_t ingress_port;
    PortId_t egress_spec;      /* set in ingress to choose the output port */
    PortId_t egress_port;      /* the output port, meaningful in egress */
#else
    bit<9>   ingress_port;
    bit<9>   egress_spec;
    bit<9>   egress_port;
#endif
    bit<32>  instance_type;    /* normal, clone, recirculated, resubmitted, replica... */
    bit<32>  packet_length;    /* in bytes */
    bit<32>  enq_timestamp;    /* microseconds */
    bit<19>  enq_qdepth;       /* packets */
    bit<32>  deq_timedelta;    /* microseconds spent queued */
    bit<19>  deq_qdepth;       /* packets */
    bit<48>  ingress_global_timestamp;
    bit<48>  egress_global_timestamp;
    bit<16>  mcast_grp;        /* 0 means no multicast */
    bit<16>  egress_rid;       /* replica id of a multicast copy */
    bit<1>   checksum_error;   /* set by verify_checksum */
    error    parser_error;
    bit<3>   priority;         /* queue priority */
}

enum CounterType {
    packets,
    bytes,
    packets_and_bytes
}

enum MeterType {
    packets,
    bytes
}

/* Colours written by meters. */
#define V1MODEL_METER_COLOR_GREEN 0
#define V1MODEL_METER_COLOR_YELLOW 1
#define V1MODEL_METER_COLOR_RED 2

#if V1MODEL_VERSION >= 20200408
extern counter<I> {
    counter(bit<32> size, CounterType type);
    void count(in I index);
}
#else
extern counter {
    counter(bit<32> size, CounterType type);
    void count(in bit<32> index);
}
#endif

/* A counter attached to a table: one cell per entry. */
extern direct_counter {
    direct_counter(CounterType type);
    void count();
}

#if V1MODEL_VERSION >= 20200408
extern meter<I> {
    meter(bit<32> size, MeterType type);
    void execute_meter<T>(in I index, out T result);
}
#else
extern meter {
    meter(bit<32> size, MeterType type);
    void execute_meter<T>(in bit<32> index, out T result);
}
#endif

/* A meter attached to a table; read() gives the colour of the entry just matched. */
extern direct_meter<T> {
    direct_meter(MeterType type);
    void read(out T result);
}

#if V1MODEL_VERSION >= 20200408
extern register<T, I> {
    register(bit<32> size);
    @noSideEffects
    void read(out T result, in I index);
    void write(in I index, in T value);
}
#else
extern register<T> {
    register(bit<32> size);
    @noSideEffects
    void read(out T result, in bit<32> index);
    void write(in bit<32> index, in T value);
}
#endif

/* Action data shared between table entries. */
extern action_profile {
    action_profile(bit<32> size);
}

/* A uniformly random value in [lo, hi]. */
extern void random<T>(out T result, in T lo, in T hi);

/* Send data to the control plane. */
extern void digest<T>(in bit<32> receiver, in T data);

enum HashAlgorithm {
    crc32,
    crc32_custom,
    crc16,
    crc16_custom,
    random,
    identity,
    csum16,
    xor16
}

@deprecated("Please use mark_to_drop(standard_metadata) instead.")
extern void mark_to_drop();

/* Drop the packet at the end of the current block. */
extern void mark_to_drop(inout standard_metadata_t standard_metadata);

/* result = base + (hash of data) mod max, or base when max is 0. */
@pure
extern void hash<O, T, D, M>(out O result, in HashAlgorithm algo, in T base, in D data, in M max);

/* Action profile whose member is chosen by hashing the selector key fields. */
extern action_selector {
    action_selector(HashAlgorithm algorithm, bit<32> size, bit<32> outputWidth);
}

enum CloneType {
    I2E,
    E2E
}

@deprecated("Please use verify_checksum/update_checksum instead.")
extern Checksum16 {
    Checksum16();
    bit<16> get<D>(in D data);
}

/* In the checksum-verification block: sets standard_metadata.checksum_error on a mismatch. */
extern void verify_checksum<T, O>(in bool condition, in T data, in O checksum, HashAlgorithm algo);

/* In the checksum-update block: writes the checksum of data when condition holds. */
@pure
extern void update_checksum<T, O>(in bool condition, in T data, inout O checksum, HashAlgorithm algo);

/* As above, with the packet payload appended to data. */
extern void verify_checksum_with_payload<T, O>(in bool condition, in T data, in O checksum, HashAlgorithm algo);

@pure
extern void update_checksum_with_payload<T, O>(in bool condition, in T data, inout O checksum, HashAlgorithm algo);

/* Clone the packet to a mirror session. */
extern void clone(in CloneType type, in bit<32> session);

@deprecated("Please use 'resubmit_preserving_field_list' instead")
extern void resubmit<T>(in T data);

/* Resubmit the original packet to ingress, keeping the metadata fields tagged @field_list(index). */
extern void resubmit_preserving_field_list(bit<8> index);

@deprecated("Please use 'recirculate_preserving_field_list' instead")
extern void recirculate<T>(in T data);

/* Send the deparsed packet back to ingress, keeping the metadata fields tagged @field_list(index). */
extern void recirculate_preserving_field_list(bit<8> index);

@deprecated("Please use 'clone_preserving_field_list' instead")
extern void clone3<T>(in CloneType type, in bit<32> session, in T data);

extern void clone_preserving_field_list(in CloneType type, in bit<32> session, bit<8> index);

/* Keep at most length bytes of the packet on output. */
extern void truncate(in bit<32> length);

/* Checks for verification and debugging tools. */
extern void assert(in bool check);
extern void assume(in bool check);

/* Log a message, optionally formatting data into its {} placeholders. */
extern void log_msg(string msg);
extern void log_msg<T>(string msg, in T data);

/* The six programmable blocks of V1Switch, in pipeline order. */
parser Parser<H, M>(packet_in b,
                    out H parsedHdr,
                    inout M meta,
                    inout standard_metadata_t standard_metadata);

control VerifyChecksum<H, M>(inout H hdr,
                             inout M meta);

@pipeline
control Ingress<H, M>(inout H hdr,
                      inout M meta,
                      inout standard_metadata_t standard_metadata);

@pipeline
control Egress<H, M>(inout H hdr,
                     inout M meta,
                     inout standard_metadata_t standard_metadata);

control ComputeChecksum<H, M>(inout H hdr,
                              inout M meta);

@deparser
control Deparser<H>(packet_out b, in H hdr);

package V1Switch<H, M>(Parser<H, M> p,
                       VerifyChecksum<H, M> vr,
                       Ingress<H, M> ig,
                       Egress<H, M> eg,
                       ComputeChecksum<H, M> ck,
                       Deparser<H> dep);

#endif  /* _V1_MODEL_P4_ */
