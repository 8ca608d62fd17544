"""Program faults triggered by packets drop that packet with a reason; the switch keeps running."""
from __future__ import annotations

from pathlib import Path

import pytest

from dataplane.arch.device import ArchitectureError
from dataplane.control.switch import Switch
from dataplane.lang.frontend import compile_source
from dataplane.testing.skeleton import v1model_program

HERE = Path(__file__).parent


def test_failed_assert_drops_the_packet_and_says_why():
    """assert(false) for one packet drops it, and the reason names the P4 file, line and column
    of the assert; the next packet is forwarded as usual."""
    sw = Switch.from_file(HERE / "assert_prog.p4")
    bad = sw.process(0, b"\x07")
    line = next(i for i, text in enumerate((HERE / "assert_prog.p4").read_text().splitlines(), 1) if "assert(" in text)
    col = (HERE / "assert_prog.p4").read_text().splitlines()[line - 1].index("assert(") + 1
    where = f"{HERE / 'assert_prog.p4'}:{line}:{col}"
    assert bad.outputs == [] and bad.drops == [f"{where}: assert() failed in switch s1; packet dropped"]
    good = sw.process(0, b"\x08")
    assert [(o.port, o.data) for o in good.outputs] == [(1, b"\x08")]


def test_an_extern_function_the_architecture_lacks_is_a_load_error():
    """A program may declare its own extern function; running it needs an implementation the
    target has (p4c's BMv2 test target builds one in): loading says which is missing."""
    src = v1model_program(decls="extern void my_ext(out bit<8> d, in bit<8> s);", ingress="my_ext(meta.x, meta.y);")
    program = compile_source(src, "ext.p4").program
    with pytest.raises(ArchitectureError, match="extern function\\(s\\) 'my_ext' have no implementation in the v1model"):
        Switch(program)
