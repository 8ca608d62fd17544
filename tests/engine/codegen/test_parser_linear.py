"""Acyclic parse graphs run as straight-line code; the result is what the state loop gives.

The program's graph is a DAG with a shared successor (two paths reach ``tail``), an
explicit ``reject``, a select whose first case is the default, masked and range keysets,
and a parser error; a second parser has a loop (a header stack) and keeps the loop form.
Every packet goes through a switch generated each way and the outputs and traces must agree.
"""
from __future__ import annotations

import random

from dataplane.control.switch import Switch
from dataplane.engine.backend import generate
from dataplane.engine.codegen import parser as codegen_parser
from dataplane.engine.trace import Trace
from dataplane.lang.frontend import compile_source

DAG = """
#include <core.p4>
#include <v1model.p4>
header k_t { bit<8> kind; }
header a_t { bit<8> x; }
header b_t { bit<16> y; }
header t_t { bit<8> z; }
header o_t { bit<8> seen; bit<8> err; }
struct headers { k_t k; a_t a; b_t b; t_t t; o_t o; }
struct metadata { bit<8> path; }
parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.k);
        transition select(hdr.k.kind) {
            1: via_a;
            8w0xF0 &&& 8w0xF0: via_b;
            2..4: tail;
            5: reject;
            default: accept;
        }
    }
    state via_a { pkt.extract(hdr.a); meta.path = 1; transition select(hdr.a.x) { default: tail; 7: accept; } }
    state via_b { pkt.extract(hdr.b); meta.path = 2; transition tail; }
    state tail { pkt.extract(hdr.t); meta.path = meta.path + 10; transition accept; }
    state unused { transition reject; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hdr.o.setValid();
        hdr.o.seen = meta.path;
        hdr.o.err = (bit<8>)(sm.parser_error == error.PacketTooShort ? 1w1 : 1w0);
        sm.egress_spec = 1;
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) {
    apply { pkt.emit(hdr.o); pkt.emit(hdr.k); pkt.emit(hdr.a); pkt.emit(hdr.b); pkt.emit(hdr.t); }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""

LOOP = """
#include <core.p4>
#include <v1model.p4>
header l_t { bit<7> v; bit<1> last; }
struct headers { l_t[4] l; }
struct metadata { }
parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { transition next; }
    state next { pkt.extract(hdr.l.next); transition select(hdr.l.last.last) { 0: next; default: accept; } }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { sm.egress_spec = 1; } }
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.l); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def pair(source: str, monkeypatch) -> tuple[Switch, Switch, str]:
    program = compile_source(source).program
    linear = Switch(program)
    src = generate(program)
    monkeypatch.setattr(codegen_parser, "_acyclic_order", lambda p: None)
    looped = Switch(compile_source(source).program)
    monkeypatch.undo()
    assert "elif _s ==" in looped.dp.pipeline.source.split("def P_P(")[1].split("def C_")[0]
    return linear, looped, src


def agree(linear: Switch, looped: Switch, packets) -> None:
    for data in packets:
        traces = Trace(linear.program.errors), Trace(looped.program.errors)
        outs = [sw.process(0, data, t) for sw, t in zip((linear, looped), traces)]
        assert outs[0] == outs[1], data
        assert traces[0].lines == traces[1].lines


def test_dag_parser_is_straight_line_and_agrees(monkeypatch):
    linear, looped, src = pair(DAG, monkeypatch)
    parser = src.split("def P_P(")[1].split("def C_")[0]
    assert "elif _s ==" not in parser and "if _s == 3:" in parser
    rng = random.Random(2)
    packets = [bytes([k]) + bytes([x]) + rng.randbytes(n) for k in range(256) for x in (7, 8) for n in (0, 1, 3)]
    agree(linear, looped, packets)


def test_parser_with_a_loop_keeps_the_state_loop(monkeypatch):
    linear, looped, src = pair(LOOP, monkeypatch)
    assert "elif _s ==" in src.split("def P_P(")[1]
    rng = random.Random(3)
    agree(linear, looped, [rng.randbytes(rng.randrange(7)) for _ in range(200)])
