"""A parser's transitions must reach accept or reject (dataplane/lang/check_parser_graph.py)."""
from __future__ import annotations

from dataplane.lang.frontend import compile_source
from dataplane.testing.diagnostics import assert_error
from dataplane.testing.skeleton import v1model_program as v1model


def test_parser_that_only_loops_is_rejected():
    """start -> a -> b -> a: every packet would loop for ever."""
    src = v1model(parser="state start { transition a; }\nstate a { transition b; }\nstate b { transition a; }")
    assert_error(src, "parser 'P' never reaches 'accept' or 'reject': its transitions from 'start' only loop "
                      "through a, b, start", at="parser P(", code="parser-graph")


def test_loop_with_an_exit_or_an_implicit_reject_passes():
    """A select case out of the loop, or a state without a transition (it rejects), is an end."""
    compile_source(v1model(parser="state start { transition a; }\n"
                                  "state a { transition select(meta.x) { 1: a; default: accept; } }"), "ok.p4")
    compile_source(v1model(parser="state start { transition a; }\nstate a { }"), "ok.p4")
