"""Registers of a struct type (engine/struct_register.py): the control plane reads a cell as a
dict of field values and writes one from a dict or a tuple; PSA's read returns a struct value;
what a struct register cannot hold is refused at load."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from dataplane.arch.device import ArchitectureError
from dataplane.control.config_errors import ControlPlaneError
from dataplane.control.switch import Switch
from dataplane.lang.frontend import compile_source

STF = Path(__file__).parents[1] / "stf"
sys.path.insert(0, str(Path(__file__).parents[1] / "arch"))
from test_psa import fields, obs, psa  # noqa: E402


def v1_switch() -> Switch:
    return Switch.from_file(STF / "extern_struct_register.p4")


def test_control_plane_reads_a_struct_cell_as_a_dict_of_its_fields():
    """A fresh cell reads all zero; after a packet, the fields the program wrote (int<8> signed)."""
    sw = v1_switch()
    assert sw.register_read("r", 1) == {"a": 0, "s": 0, "b": 0, "flag": False}
    sw.send(0, bytes.fromhex("000000000002000000000001" "88b5" "00000000" "00000000" "0000" "0005" "01000000"))
    assert sw.register_read("r", 1) == {"a": 5, "s": -1, "b": 1, "flag": True}


def test_control_plane_writes_a_struct_cell_from_a_dict_or_a_tuple_and_the_program_reads_it():
    sw = v1_switch()
    sw.register_write("MyIngress.r", 2, {"a": 0x1234, "s": -5, "b": 7, "flag": True})
    sw.register_write("r", 3, (1, 2, 3, False))
    out = sw.send(0, bytes.fromhex("000000000002000000000001" "88b5" "00000000" "00000000" "0000" "0000" "02000000"))
    assert out[0].data[22:24] == b"\x12\x34" and out[0].data[26:30] == bytes([2, 0xFB, 7, 1])   # obs.c, e f g h
    assert sw.register_read("r", 3) == {"a": 1, "s": 2, "b": 3, "flag": False}


@pytest.mark.parametrize("value, message", [
    ("5", "holds struct 'Cell': give a dict of its fields"),
    ({"a": 1}, "needs exactly the fields a, s, b, flag; missing s, b, flag"),
    ({"a": 1, "s": 0, "b": 0, "flag": False, "z": 1}, "unknown z"),
    ((1 << 16, 0, 0, False), "field 'a' value 65536 does not fit in bit<16>"),
    ((0, -129, 0, False), "field 's' value -129 does not fit in int<8>"),
    ((0, 0, 0, 2), "field 'flag' is a bool"),
])
def test_a_bad_struct_value_is_a_control_plane_error_naming_the_field(value, message):
    with pytest.raises(ControlPlaneError, match="register 'MyIngress.r'") as err:
        v1_switch().register_write("r", 0, value)
    assert message in str(err.value)


def test_psa_register_of_a_nested_struct_reads_a_value():
    """PSA's read(index) returns the cell's value: a nested struct too; out of range reads zero."""
    sw = psa("""Pair p = r.read((bit<8>)hdr.obs.cos);
                hdr.obs.a = p.lo.x; hdr.obs.b = p.hi;
                p.lo.x = p.lo.x + 1; p.hi = (bit<32>)hdr.obs.inst;
                r.write((bit<8>)hdr.obs.cos, p);
                send_to_port(ostd, (PortId_t) 1);""",
             decls="struct Lo { bit<32> x; } struct Pair { Lo lo; bit<32> hi; }",
             ingress_decls="Register<Pair, bit<8>>(4) r;")
    assert fields(sw.send(0, obs(cos=1, inst=9))[0].data)["a"] == 0
    got = fields(sw.send(0, obs(cos=1, inst=3))[0].data)
    assert (got["a"], got["b"]) == (1, 9)
    assert sw.register_read("r", 1) == {"lo": {"x": 2}, "hi": 3}
    assert fields(sw.send(0, obs(cos=7))[0].data)["a"] == 0


def test_a_struct_register_holding_a_header_is_refused_at_load():
    text = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> f; }
struct S { h_t h; }
struct H {} struct M {}
parser P(packet_in p, out H h, inout M m, inout standard_metadata_t s) { state start { transition accept; } }
control C(inout H h, inout M m) { apply {} }
control I(inout H h, inout M m, inout standard_metadata_t s) { register<S>(4) r; apply {} }
control D(packet_out p, in H h) { apply {} }
V1Switch(P(), C(), I(), I(), C(), D()) main;
"""
    with pytest.raises(ArchitectureError, match="register 'I.r' holds struct 'S', whose field 'h' is a h_t"):
        Switch(compile_source(text, "hdr.p4").program)
