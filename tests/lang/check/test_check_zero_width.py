"""bit<0> is a zero-width value as p4c takes it (bit0-bmv2.p4, issue4143.p4): it compiles, takes
no bits of a packet and adds nothing; int<0> and negative widths stay errors."""
from __future__ import annotations

import pytest

from dataplane.control.switch import Switch
from dataplane.lang.frontend import compile_source
from dataplane.testing.diagnostics import assert_error
from dataplane.testing.skeleton import v1model_program


def test_a_zero_width_field_takes_no_bits_of_the_packet():
    src = v1model_program(decls="header z_t { bit<0> a; bit<8> b; bit<0> c; }", headers="h_t h; z_t z;",
                          parser="state start { pkt.extract(hdr.z); transition accept; }",
                          ingress="bit<0> t = 1; hdr.z.c = hdr.z.a + (bit<0>)hdr.z.b + t; "
                                  "hdr.z.b = hdr.z.b + 1; sm.egress_spec = 1;")
    program = compile_source(src, "zero.p4").program
    assert program.headers["z_t"].width == 8
    [out] = Switch(program).send(0, bytes([7, 1, 2]))
    assert out.data == bytes([8, 1, 2])


@pytest.mark.parametrize("type_, at", [("int<0>", "int<0>"), ("bit<(-1)>", "bit<(-1)>")])
def test_int_of_zero_and_negative_widths_are_errors(type_, at):
    assert_error(v1model_program(ingress_locals=f"{type_} v;"), "invalid width", at=at, code="out-of-range")
