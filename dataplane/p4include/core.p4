/*
 * core.p4 -- the P4_16 core library as bundled with dataplane.
 *
 * Written for this project from the declarations the P4_16 specification
 * requires of every target: the built-in error codes, the packet_in and
 * packet_out externs used by parsers and deparsers, verify(), NoAction and
 * the three standard match kinds.
 */

#ifndef _CORE_P4_
#define _CORE_P4_

/* Errors a parser can signal; programs may add more with their own error declarations. */
error {
    NoError,
    PacketTooShort,
    NoMatch,
    StackOutOfBounds,
    HeaderTooShort,
    ParserTimeout,
    ParserInvalidArgument
}

/* The packet as seen by a parser: headers are extracted from the front. */
extern packet_in {
    /* Copy the next bits into a fixed-size header and make it valid. */
    void extract<T>(out T hdr);
    /* Same for a header ending in a varbit field of varbitSizeInBits bits. */
    void extract<T>(out T hdr, in bit<32> varbitSizeInBits);
    /* Read the next bits without consuming them. */
    T lookahead<T>();
    /* Skip bits without copying them. */
    void advance(in bit<32> bits);
    /* Total packet length in bytes. */
    bit<32> length();
}

/* The packet being built by a deparser: valid headers are appended in emit order. */
extern packet_out {
    void emit<T>(in T hdr);
}

/* In a parser: when check is false, stop parsing with error toSignal. */
extern void verify(in bool check, in error toSignal);

/* The do-nothing action, the usual default action of a table. */
@noWarn("unused")
action NoAction() {}

/* Match kinds every target supports. */
match_kind {
    exact,
    ternary,
    lpm
}

/* Compile-time assertions: an error is reported when check is false. */
extern bool static_assert(bool check, string message);
extern bool static_assert(bool check);

#endif  /* _CORE_P4_ */
