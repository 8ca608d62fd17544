/*
 * pna.p4 -- the P4 Portable NIC Architecture (PNA) as bundled with dataplane.
 *
 * Written for this project after the PNA specification (p4lang/pna, v0.7): the
 * standard metadata, forwarding extern functions, stateful externs and the
 * programmable blocks of the PNA_NIC package. Only what the emulator runs is
 * declared. Ports and other ids are typedefs (not `type`), so plain integer
 * literals and casts both work.
 *
 * PNA_NIC is declared in the older 4-block form (main parser, pre-control,
 * main control, main deparser), as p4c's pna-*.p4 samples use it. The front
 * end does not overload packages, so the v0.7 3-block form is not declared;
 * 3-block programs should pass an empty pre-control.
 */

#ifndef _PORTABLE_NIC_ARCHITECTURE_P4_
#define _PORTABLE_NIC_ARCHITECTURE_P4_

#include <core.p4>

match_kind {
    range,      /* value within [low, high] */
    optional    /* exact value, or wildcard */
}

typedef bit<32> PortId_t;
typedef bit<32> PortIdUint_t;
typedef bit<64> Timestamp_t;
typedef bit<8>  ClassOfService_t;
typedef bit<16> CloneSessionId_t;
typedef bit<8>  MirrorSlotId_t;
typedef bit<16> MirrorSessionId_t;
typedef bit<3>  PassNumber_t;
typedef bit<32> SecurityAssocIndex_t;
typedef bit<32> FlowId_t;
typedef bit<8>  ExpireTimeProfileId_t;
typedef error   ParserError_t;

const PortId_t PNA_PORT_CPU = 0xfffffffd;

enum PNA_Direction_t {
    NET_TO_HOST,
    HOST_TO_NET
}

enum PNA_PacketPath_t {
    FROM_NET_PORT,
    FROM_NET_LOOPEDBACK,
    FROM_NET_RECIRCULATED,
    FROM_HOST,
    FROM_HOST_LOOPEDBACK,
    FROM_HOST_RECIRCULATED
}

enum PNA_HashAlgorithm_t {
    IDENTITY,
    CRC32,
    CRC32_CUSTOM,
    CRC16,
    CRC16_CUSTOM,
    ONES_COMPLEMENT16,
    TARGET_DEFAULT
}

enum PNA_CounterType_t {
    PACKETS,
    BYTES,
    PACKETS_AND_BYTES
}

enum PNA_MeterType_t {
    PACKETS,
    BYTES
}

enum PNA_MeterColor_t { RED, GREEN, YELLOW }

enum PNA_IdleTimeout_t {
    NO_TIMEOUT,
    NOTIFY_CONTROL
}

struct pna_main_parser_input_metadata_t {
    PNA_Direction_t direction;     /* from the input port (older PNA; see is_net_port) */
    PassNumber_t    pass;
    bool            loopedback;
    bool            recirculated;
    PortId_t        input_port;
}

struct pna_pre_input_metadata_t {
    PortId_t        input_port;
    ParserError_t   parser_error;
    PNA_Direction_t direction;
    PassNumber_t    pass;
    bool            loopedback;
}

struct pna_pre_output_metadata_t {
    bool                 decrypt;
    SecurityAssocIndex_t sa_index;
}

struct pna_main_input_metadata_t {
    PNA_Direction_t  direction;
    PassNumber_t     pass;
    bool             loopedback;
    bool             recirculated;
    Timestamp_t      timestamp;
    ParserError_t    parser_error;
    ClassOfService_t class_of_service;
    PortId_t         input_port;
}

struct pna_main_output_metadata_t {
    ClassOfService_t class_of_service;
}

/* Forwarding: the last call in the main control wins; with neither, the packet is dropped. */
extern void send_to_port(in PortId_t dest_port);
extern void drop_packet();
/* Recorded only: the emulator does not send mirror copies. */
extern void mirror_packet(in MirrorSlotId_t mirror_slot_id, in MirrorSessionId_t mirror_session_id);

extern bool is_net_port(in PortId_t p);
extern bool is_host_port(in PortId_t p);

/* n2h_value when direction is NET_TO_HOST, else h2n_value. */
extern T SelectByDirection<T>(in PNA_Direction_t direction, in T n2h_value, in T h2n_value);

/* Add-on-miss: insert an entry for the key just looked up, in the table being applied. */
extern bool add_entry<T>(string action_name, in T action_params, in ExpireTimeProfileId_t expire_time_profile_id);

extern Hash<O> {
    Hash(PNA_HashAlgorithm_t algo);
    O get_hash<D>(in D data);
    /* (base + (h % max)) where h is the hash of data (p4c's pna.p4). */
    O get_hash<T, D>(in T base, in D data, in T max);
}

extern InternetChecksum {
    InternetChecksum();
    void clear();
    void add<T>(in T data);
    void subtract<T>(in T data);
    bit<16> get();
    bit<16> get_state();
    void set_state(in bit<16> checksum_state);
}

extern Counter<W, S> {
    Counter(bit<32> n_counters, PNA_CounterType_t type);
    void count(in S index);
}

extern Register<T, S> {
    Register(bit<32> size);
    T read(in S index);
    void write(in S index, in T value);
}

extern Meter<S> {
    Meter(bit<32> n_meters, PNA_MeterType_t type);
    PNA_MeterColor_t execute(in S index);
}

parser MainParserT<MH, MM>(packet_in pkt,
                           out MH main_hdr,
                           inout MM main_user_meta,
                           in pna_main_parser_input_metadata_t istd);

control PreControlT<PH, PM>(in PH pre_hdr,
                            inout PM pre_user_meta,
                            in pna_pre_input_metadata_t istd,
                            inout pna_pre_output_metadata_t ostd);

control MainControlT<MH, MM>(inout MH main_hdr,
                             inout MM main_user_meta,
                             in pna_main_input_metadata_t istd,
                             inout pna_main_output_metadata_t ostd);

control MainDeparserT<MH, MM>(packet_out pkt,
                              in MH main_hdr,
                              in MM main_user_meta,
                              in pna_main_output_metadata_t ostd);

package PNA_NIC<MH, MM>(MainParserT<MH, MM> main_parser,
                        PreControlT<MH, MM> pre_control,
                        MainControlT<MH, MM> main_control,
                        MainDeparserT<MH, MM> main_deparser);

#endif  /* _PORTABLE_NIC_ARCHITECTURE_P4_ */
