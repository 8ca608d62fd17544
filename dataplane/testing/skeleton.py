"""A whole v1model program around a few pieces, for tests of the front end and the engine.

Tests that care about one statement or one declaration write only that piece; the
headers, metadata, the six blocks and the ``V1Switch`` package come from here.
"""
from __future__ import annotations


def v1model_program(*, decls: str = "", headers: str = "h_t h;",
                    parser: str = "state start { transition accept; }", parser_locals: str = "",
                    ingress: str = "", ingress_locals: str = "", version: int | None = None,
                    main: bool = True) -> str:
    """P4 source of a v1model program with the given pieces.

    ``meta`` has fields ``x y: bit<8>``, ``w: bit<16>``, ``z: bit<32>``, ``s: int<8>``, ``f: bool``;
    ``h_t`` is ``{bit<8> a; bit<16> b; bit<32> c;}``; ``decls`` go before the headers struct;
    ``parser`` is the body of parser ``P`` and ``ingress`` the apply block of control ``IG``;
    ``version`` sets ``V1MODEL_VERSION``; ``main=False`` leaves out the package instance.
    """
    define = f"#define V1MODEL_VERSION {version}\n" if version else ""
    package = "V1Switch(P(), VC(), IG(), EG(), CC(), DP()) main;\n" if main else ""
    return f"""#include <core.p4>
{define}#include <v1model.p4>
header h_t {{ bit<8> a; bit<16> b; bit<32> c; }}
{decls}
struct headers_t {{ {headers} }}
struct meta_t {{ bit<8> x; bit<8> y; bit<16> w; bit<32> z; int<8> s; bool f; }}
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
{parser_locals}
{parser}
}}
control VC(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control IG(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
{ingress_locals}
    apply {{
{ingress}
    }}
}}
control EG(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{ apply {{ }} }}
control CC(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control DP(packet_out pkt, in headers_t hdr) {{ apply {{ pkt.emit(hdr); }} }}
{package}"""
