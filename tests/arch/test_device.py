"""What every architecture's Device checks before it loads a program."""
from __future__ import annotations

import pytest

from dataplane.arch.device import ArchitectureError
from dataplane.control.switch import Switch
from dataplane.lang.frontend import compile_source

OWN_V1SWITCH = """
#include <core.p4>
parser P();
control C();
package V1Switch(P p, C c);
parser MyP() { state start { transition accept; } }
control MyC() { apply { } }
V1Switch(MyP(), MyC()) main;
"""

OWN_EBPF_FILTER = """
#include <core.p4>
parser parse<H>(packet_in p, out H h);
package ebpfFilter<H>(parse<H> prs);
header h_t { bit<8> f; }
parser prs(packet_in p, out h_t h) { state start { p.extract(h); transition accept; } }
ebpfFilter(prs()) main;
"""


@pytest.mark.parametrize("source, want", [
    (OWN_V1SWITCH, "'main' is a 'V1Switch' that does not fit the V1Switch(p, vr, ig, eg, ck, dep) of v1model.p4: "
                   "'p' (MyP) has 0 parameter(s), not 4; no block 'vr'"),
    (OWN_EBPF_FILTER, "'main' is a 'ebpfFilter' that does not fit the ebpfFilter(prs, filt) of ebpf_model.p4: "
                      "no block 'filt'"),
])
def test_a_package_the_program_declares_itself_is_refused_by_name(source, want):
    """A program that declares its own package named like an architecture's (p4c's front-end
    tests do) compiles, but loading it names the package and the blocks that do not fit, rather
    than failing inside the architecture's block binding."""
    program = compile_source(source, "own.p4").program
    with pytest.raises(ArchitectureError) as err:
        Switch(program)
    assert want in str(err.value) and str(err.value).startswith("own.p4: ")


OWN_EXTERN = """#include <core.p4>
#include <v1model.p4>
extern my_counter { my_counter(bit<32> n); void hit(); }
struct H {} struct M {}
parser P(packet_in p, out H h, inout M m, inout standard_metadata_t s) { state start { transition accept; } }
control C(inout H h, inout M m) { apply {} }
control I(inout H h, inout M m, inout standard_metadata_t s) {
    my_counter(4) c;
    apply { c.hit(); }
}
control D(packet_out p, in H h) { apply {} }
V1Switch(P(), C(), I(), I(), C(), D()) main;
"""


def test_an_extern_the_program_declares_itself_is_refused_at_its_instance():
    """p4c accepts an instance of an extern the program declares; only a target that implements
    it could run it, so loading names the extern, the instance and where it is."""
    with pytest.raises(ArchitectureError) as err:
        Switch(compile_source(OWN_EXTERN, "ext.p4").program)
    assert str(err.value).startswith("ext.p4:8:5: unsupported: extern 'my_counter' (instance 'I.c')")
