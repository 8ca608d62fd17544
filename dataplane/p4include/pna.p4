/*
 * pna.p4 -- the P4 Portable NIC Architecture (PNA) as bundled with dataplane.
 *
 * Written for this project after the PNA specification (p4lang/pna, v0.7): the
 * standard metadata, forwarding extern functions, stateful externs and the
 * programmable blocks of the PNA_NIC package. Only what the emulator runs is
 * declared. Ports and other ids are typedefs (not `type`), so plain integer
 * literals and casts both work.
 *
 * PNA_NIC is declared in both forms: the v0.7 3-block form (main parser, main
 * control, main deparser) and the older 4-block form with a pre-control, which
 * p4c's pna-*.p4 samples still use. The front end lets a package be overloaded
 * by its number of parameters, and `PNA_NIC(...) main;` picks the form with as
 * many parameters as it has arguments. (An extension: the P4_16 spec overloads
 * only functions, methods and constructors; p4c accepts overloaded packages only
 * when they are not generic, so p4c's own pna.p4 files declare one form each.)
 *
 * The metadata structs are v0.7's plus the older fields (direction, pass,
 * loopedback), so programs written for either version compile.
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
/* Reserved by the architecture (spec: "must not be used by a P4 developer"). */
const MirrorSessionId_t PNA_MIRROR_SESSION_TO_CPU = 0;

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

/* AUTO_DELETE: PNA's own pna.p4 has it (an expired entry is deleted); p4c's has the first two. */
enum PNA_IdleTimeout_t {
    NO_TIMEOUT,
    NOTIFY_CONTROL,
    AUTO_DELETE
}

/* v0.7: recirculated, input_port. direction, pass, loopedback: older PNA (v0.7 uses
 * is_net_port(input_port) instead of direction). pass and loopedback are always 0/false. */
struct pna_main_parser_input_metadata_t {
    PNA_Direction_t direction;
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

/* v0.7: recirculated, timestamp, parser_error, class_of_service, input_port. */
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
/* A copy of the packet to the port of the mirror session the control plane configured
 * (mirroring_add); no copy for an unconfigured session. The copy is the packet after the
 * main control (POST_MODIFY, the default) or as received (a PRE_MODIFY session), whether
 * or not the original is dropped. One copy per slot: the last call for a slot wins. */
extern void mirror_packet(in MirrorSlotId_t mirror_slot_id, in MirrorSessionId_t mirror_session_id);

extern bool is_net_port(in PortId_t p);
extern bool is_host_port(in PortId_t p);

/* The first value for a packet from the network, else the second. The selector is v0.7's
 * `bool is_network_port` (e.g. is_net_port(istd.input_port)) or, as in older PNA, a
 * PNA_Direction_t (NET_TO_HOST picks the first value). It is generic so that both compile;
 * a value of any other type is taken as a PNA_Direction_t (0 = NET_TO_HOST). */
extern T SelectByDirection<T, D>(in D is_network_port, in T from_net_value, in T from_host_value);

/* Add-on-miss: insert an entry for the key just looked up, in the table being applied; in a
 * table with pna_idle_timeout its expire timer starts with the given profile. */
extern bool add_entry<T>(string action_name, in T action_params, in ExpireTimeProfileId_t expire_time_profile_id);
/* In an action of a table with pna_idle_timeout NOTIFY_CONTROL or AUTO_DELETE, on a hit: give
 * the matched entry this expire time profile and restart its timer / only restart it. */
extern void set_entry_expire_time(in ExpireTimeProfileId_t expire_time_profile_id);
extern void restart_expire_timer();

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

/* Attached to one table by its `pna_direct_counter = c;` property. count(), called in an
 * action of that table, counts the entry that matched (nothing on a miss); the increment,
 * if given, is added to the bytes instead of the packet's length. */
extern DirectCounter<W> {
    DirectCounter(PNA_CounterType_t type);
    void count();
    void count(in bit<32> increment);
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

/* PNA v0.7 */
package PNA_NIC<MH, MM>(MainParserT<MH, MM> main_parser,
                        MainControlT<MH, MM> main_control,
                        MainDeparserT<MH, MM> main_deparser);

/* Older PNA (p4c's pna-*.p4 samples): the pre-control runs after the parser. */
package PNA_NIC<MH, MM>(MainParserT<MH, MM> main_parser,
                        PreControlT<MH, MM> pre_control,
                        MainControlT<MH, MM> main_control,
                        MainDeparserT<MH, MM> main_deparser);

#endif  /* _PORTABLE_NIC_ARCHITECTURE_P4_ */
