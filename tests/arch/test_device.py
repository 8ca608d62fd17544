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
    (OWN_V1SWITCH, "'main' is a 'V1Switch' that does not fit v1model.p4's V1Switch(p, vr, ig, eg, ck, dep): "
                   "'p' (MyP) has 0 parameter(s), not 4; no block 'vr'"),
    (OWN_EBPF_FILTER, "'main' is a 'ebpfFilter' that does not fit ebpf_model.p4's ebpfFilter(prs, filt): "
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
