"""Arrays of non-header values (p4c's arrays of 2025: array1.p4, array2.p4): the front end takes
``bit<8>[16] arr`` and the C-style ``bit<8> arr[16]`` in a header, indexes them, and keeps the
header-stack-only members for header stacks; the engine refuses to load such a program by name."""
from __future__ import annotations

import pytest

from dataplane.arch.device import ArchitectureError
from dataplane.control.switch import Switch
from dataplane.errors import CompileError
from dataplane.lang.frontend import compile_source
from dataplane.testing.diagnostics import assert_error
from dataplane.testing.skeleton import v1model_program


def program(field: str, ingress: str = "hdr.d.arr[1] = hdr.h.a;", locals_: str = ""):
    decls = f"header data_t {{ bit<32> f1; {field} }}"
    src = v1model_program(decls=decls, headers="h_t h; data_t d;", ingress=ingress, ingress_locals=locals_)
    return compile_source(src, "arrays.p4").program


@pytest.mark.parametrize("field", ["bit<8>[16] arr;", "bit<8> arr[16];"])
def test_an_array_of_bits_in_a_header_compiles_with_its_width(field):
    """Both spellings give a header of 32 + 16 * 8 bits."""
    p = program(field)
    assert p.headers["data_t"].width == 32 + 16 * 8
    assert p.types["data_t"].fields[1].type.size == 16


def test_header_stack_members_are_not_for_arrays():
    assert_error(v1model_program(decls="header data_t { bit<32> f1; bit<8>[4] arr; }",
                                 headers="h_t h; data_t d;", ingress="hdr.d.arr.push_front(1);"),
                 "'push_front' is for header stacks, not an array of bit<8>", at="hdr.d.arr.push_front",
                 code="unknown-member")
    with pytest.raises(CompileError, match="'.last' is for header stacks"):
        program("bit<8>[4] arr;", ingress="hdr.h.a = hdr.d.arr.last;")
    assert_error(v1model_program(ingress_locals="string[2] s;"), "array elements must be headers",
                 at="string[2]", code="invalid-type")


@pytest.mark.parametrize("field, locals_", [("bit<8>[4] arr;", ""), ("bit<8> other;", "bit<8>[4] a;")])
def test_the_engine_refuses_a_program_with_an_array_of_values(field, locals_):
    """A header field or a local array: loading names where it is, never a traceback."""
    ingress = "a[1] = hdr.h.a;" if locals_ else "hdr.d.arr[1] = hdr.h.a;"
    p = program(field, ingress=ingress, locals_=locals_)
    with pytest.raises(ArchitectureError, match="unsupported: an array of non-header values"):
        Switch(p)


def test_each_program_is_checked_whatever_was_checked_before():
    """The check remembers the last program it walked (a fabric's switches share one): a program
    with an array after one without, the same one again, then one without, each get their own answer."""
    good = program("bit<8> other;", ingress="hdr.h.a = hdr.d.other;")
    bad = program("bit<8>[4] arr;")
    assert Switch(good) is not None and Switch(good) is not None
    for _ in range(2):
        with pytest.raises(ArchitectureError, match="unsupported: an array of non-header values"):
            Switch(bad)
    assert Switch(good) is not None
