"""lang.frontend: the passes as a declared list, run in order, timed, stopped on error or on request."""
from __future__ import annotations

import pytest

from dataplane.lang.frontend import PASS_NAMES, PASSES, FrontEndState, compile_source, format_timings, run_passes

BAD = "const bit<8> x = true;\n"          # parses, fails to check
GOOD = "const bit<8> x = 8w1;\n"


def test_passes_are_declared_in_order():
    assert PASS_NAMES == ("preprocess", "parse", "check", "inline", "lint")
    assert all(p.doc for p in PASSES)


def test_a_pass_that_reports_an_error_stops_the_list():
    """check reports the bad constant: inline and lint never run (and are not timed)."""
    st = run_passes(FrontEndState("bad.p4", text=BAD))
    assert st.sink.has_errors()
    assert "check" in st.timings and "inline" not in st.timings and "lint" not in st.timings


def test_stop_after_leaves_the_later_passes_out():
    """stop_after='parse' gives the tree and no program; an unknown pass name is refused."""
    result = compile_source(GOOD, "good.p4", stop_after="parse")
    assert result.syntax is not None and result.program is None
    assert "check" not in result.timings
    with pytest.raises(ValueError, match="no front-end pass named 'codegen'"):
        compile_source(GOOD, "good.p4", stop_after="codegen")


def test_timings_print_one_line_per_pass_that_ran():
    text = format_timings(compile_source(GOOD, "good.p4").timings)
    assert [line.split()[0] for line in text.splitlines()] == [*PASS_NAMES, "total"]
    assert "(lex " in text.splitlines()[1]
