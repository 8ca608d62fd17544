"""The preprocessor's bounds (``CompileLimits``: source size, macro expansion, ``#if`` nesting):
at a limit a program preprocesses, one over it is a ``limit`` error at the line that crossed
it. Small limits keep the programs small; the last tests use the defaults on real bombs."""
from __future__ import annotations

import time

import pytest

from dataplane.errors import CompileError
from dataplane.lang.limits import CompileLimits
from dataplane.lang.preprocess.directives import preprocess

FILE = "main.p4"


def pp(text: str, **limits):
    return preprocess(text=text, filename=FILE, limits=CompileLimits(**limits))


def limit_error(text: str, **limits):
    """The one diagnostic of preprocessing ``text`` under ``limits``, which must be a ``limit`` error."""
    with pytest.raises(CompileError) as info:
        pp(text, **limits)
    limit = [d for d in info.value.diagnostics if d.code == "limit"]
    assert len(limit) == 1, info.value.render()
    return limit[0]


# ---- source size ------------------------------------------------------------------------------

def test_source_text_at_the_limit_is_read_and_one_byte_more_is_not():
    """``source_bytes`` counts the program's bytes (UTF-8): a program of exactly that many passes;
    one byte more is refused at the byte that crosses it."""
    text = "const bit<8> a = 1;\nconst bit<8> é = 2;\n"      # é is two bytes
    size = len(text.encode())
    assert pp(text, source_bytes=size).text == text
    d = limit_error(text, source_bytes=size - 1)
    assert "the program's source text is more than" in d.message
    assert (d.span.file, d.span.line, d.span.col) == (FILE, 2, 20)    # the last character, the newline


def test_a_file_over_the_limit_is_refused_without_reading_it_all(tmp_path):
    """A file is read only up to the limit and one byte: the error names where it crossed."""
    path = tmp_path / "big.p4"
    path.write_text("// x\n" * 1000)
    assert preprocess(path, limits=CompileLimits(source_bytes=5000)).line_map[-1] == (str(path), 1000)
    with pytest.raises(CompileError) as info:
        preprocess(path, limits=CompileLimits(source_bytes=4999))
    d = info.value.first
    assert d.code == "limit" and (d.span.line, d.span.col) == (1000, 5)


def test_included_files_count_towards_the_source_size(tmp_path):
    """Includes add their bytes; the include that crosses the limit is the error's place."""
    (tmp_path / "inc.p4").write_text("const bit<8> b = 2;\n")
    main = '// first line\n#include "inc.p4"\n'
    total = len(main) + len("const bit<8> b = 2;\n")
    name = str(tmp_path / FILE)
    assert "const bit<8> b = 2;" in preprocess(text=main, filename=name, limits=CompileLimits(source_bytes=total)).text
    with pytest.raises(CompileError) as info:
        preprocess(text=main, filename=name, limits=CompileLimits(source_bytes=total - 1))
    d = info.value.first
    assert d.code == "limit" and "with 'inc.p4' included here" in d.message
    assert (d.span.line, d.span.col) == (2, 1)


# ---- macro expansion ---------------------------------------------------------------------------

def test_a_lines_expansion_at_the_limit_passes_and_one_byte_over_does_not():
    """``line_expansion_bytes`` counts the bodies put in place on one line: two uses of a 4-byte
    body are 8 bytes; the error points at the macro whose expansion crossed the limit."""
    text = "#define A abcd\nx A A\n"
    assert pp(text, line_expansion_bytes=8).text.split("\n")[1] == "x abcd abcd"
    d = limit_error(text, line_expansion_bytes=7)
    assert "the macros of this line expand to more than 7 bytes" in d.message
    assert (d.span.line, d.span.col) == (2, 5)


def test_nested_expansions_count_at_every_level():
    """A macro's body counts, and so do the bodies its expansion puts in place: ``B`` is 3
    bytes (``A A``) and each ``A`` 4 more, 11 in all."""
    text = "#define A abcd\n#define B A A\nB\n"
    assert pp(text, line_expansion_bytes=11).text.split("\n")[2] == "abcd abcd"
    limit_error(text, line_expansion_bytes=10)


def test_the_whole_programs_expansion_is_bounded_and_ends_preprocessing():
    """``expansion_bytes`` counts every line's expansions together; past it preprocessing
    stops at that line (later lines would only cross it again)."""
    text = "#define A abcd\nA\nA\nA\n"
    assert pp(text, expansion_bytes=12).text.split("\n")[1:4] == ["abcd"] * 3
    d = limit_error(text, expansion_bytes=11)
    assert "macro expansion made more than 11 bytes of text in this program" in d.message
    assert d.span.line == 4


def test_macros_nested_to_the_depth_limit_expand_and_one_deeper_does_not():
    """``macro_depth`` bounds macros expanding inside macros: a chain M1 -> M2 -> M3 is 3 deep."""
    text = "#define M1 M2\n#define M2 M3\n#define M3 done\nM1\n"
    assert pp(text, macro_depth=3).text.split("\n")[3] == "done"
    d = limit_error(text, macro_depth=2)
    assert "macros expand inside one another more than 2 levels deep" in d.message
    assert (d.span.line, d.span.col) == (4, 1)


def test_arguments_nested_in_arguments_count_as_depth():
    """``F(F(F(1)))``: each argument is expanded inside the call that takes it, 3 deep."""
    text = "#define F(x) (x)\nF(F(F(1)))\n"
    assert pp(text, macro_depth=3).text.split("\n")[1] == "(((1)))"
    limit_error(text, macro_depth=2)


def test_if_expressions_use_the_same_macro_budget():
    """``#if`` expands macros too: its expansion is bounded like a line's."""
    text = "#define A 1\n#define B A\n#if B\nyes\n#endif\n"
    assert "yes" in pp(text, macro_depth=2).text
    d = limit_error(text, macro_depth=1)
    assert d.span.line == 3


# ---- #if expressions ---------------------------------------------------------------------------

@pytest.mark.parametrize("expr", ["((1))", "!!1", "-(1)"])
def test_if_expressions_nested_to_the_limit_evaluate_and_one_deeper_does_not(expr):
    """Parentheses and unary operators nest; ``nesting`` bounds them as it bounds P4 expressions."""
    assert "yes" in pp(f"#if {expr}\nyes\n#endif\n", nesting=2).text
    d = limit_error(f"#if ({expr})\nyes\n#endif\n", nesting=2)
    assert "the expression nests more than 2 levels deep" in d.message and d.span.line == 1


def test_if_arithmetic_is_cpps_64_bits():
    """As cpp's intmax_t: a sum past 2**63-1 wraps around; a constant of 2**64 or more is an error
    (a line of multiplications cannot build an integer of megabytes)."""
    assert "yes" in pp("#if 9223372036854775807 + 1 < 0\nyes\n#endif\n").text
    assert "yes" in pp("#if 18446744073709551615 > 0\nyes\n#endif\n").text
    for big in ("18446744073709551616", "1" * 400_000):
        with pytest.raises(CompileError, match="integer constant is too large"):
            pp(f"#if {big}\n#endif\n")
    start = time.monotonic()
    pp("#if " + "99999999999999999 * " * 20_000 + "1\n#endif\n")
    assert time.monotonic() - start < 5


def test_line_numbers_past_an_int_are_refused():
    """``#line`` takes cpp's range (up to 2**31-1), not a number of any length."""
    assert pp("#line 2147483647\nx\n").line_map[1] == (FILE, 2147483647)
    for n in ("2147483648", "9" * 10_000):
        with pytest.raises(CompileError, match="#line number out of range"):
            pp(f"#line {n}\nx\n")


# ---- the defaults --------------------------------------------------------------------------------

def test_a_macro_bomb_stops_at_the_default_line_limit_in_seconds():
    """``#define A1 A0 A0`` ... ``A40``: 2**40 copies, stopped at the line that uses it."""
    text = "#define A0 x\n" + "".join(f"#define A{i} A{i - 1} A{i - 1}\n" for i in range(1, 41)) + "A40\n"
    start = time.monotonic()
    d = limit_error(text)
    assert "the macros of this line expand to more than 1 MiB" in d.message
    assert (d.span.line, d.span.col) == (42, 1)
    assert time.monotonic() - start < 10


def test_self_referencing_and_mutually_recursive_macros_end():
    """C's rule (a macro is not expanded inside its own expansion) ends these; the budget
    bounds what they make on the way."""
    assert pp("#define F(x) F(x) F(x)\nF(1)\n").text.split("\n")[1] == "F(1) F(1)"
    assert pp("#define F(x) G(x)\n#define G(x) F(x)\nF(1)\n").text.split("\n")[2] == "F(1)"
    d = limit_error("#define F(x) (x)\n" + "F(" * 20_000 + "1" + ")" * 20_000 + "\n")
    assert "more than 64 levels deep" in d.message
