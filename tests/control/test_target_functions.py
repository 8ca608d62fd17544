"""Switch(extern_functions=...): extern functions a v1model program declares itself, implemented
by the caller as a target built with them would (BMv2's --load-modules, as p4c's
extern-funcs-bmv2 test loads one)."""
from __future__ import annotations

import pytest

from dataplane.arch.device import ArchitectureError
from dataplane.control.switch import ControlPlaneError, Switch
from dataplane.lang.frontend import compile_source
from dataplane.testing.skeleton import v1model_program

DECLS = "extern void mix(out bit<8> d, in bit<8> a, inout bit<16> acc);"
PARSER = "state start { pkt.extract(hdr.h); transition accept; }"


@pytest.fixture(scope="module")
def program():
    src = v1model_program(decls=DECLS, parser=PARSER,
                          ingress="mix(hdr.h.a, hdr.h.a, hdr.h.b); sm.egress_spec = 1;")
    return compile_source(src, "target.p4").program


def test_the_callable_gets_ins_and_out_widths_and_returns_outs(program):
    """mix(out d, in a, inout acc): called with (ctx, a, acc, 8, 16); returns (d, acc)."""
    calls = []

    def mix(ctx, a, acc, d_width, acc_width):
        calls.append((a, acc, d_width, acc_width))
        return (a + 1) & 0xFF, acc + a

    sw = Switch(program, extern_functions={"mix": mix})
    [out] = sw.send(0, bytes([0x10, 0x01, 0x00]) + b"\x00" * 4)
    assert calls == [(0x10, 0x0100, 8, 16)]
    assert out.data[:3] == bytes([0x11, 0x01, 0x10])


def test_without_the_function_loading_names_it(program):
    with pytest.raises(ArchitectureError, match="extern function\\(s\\) 'mix' have no implementation"):
        Switch(program)


def test_only_v1model_programs_take_target_functions():
    from pathlib import Path

    pna = Path(__file__).parents[1] / "arch" / "pna_v07.p4"
    with pytest.raises(ControlPlaneError, match="extern_functions applies to v1model programs"):
        Switch.from_file(pna, extern_functions={"mix": lambda ctx: None})
