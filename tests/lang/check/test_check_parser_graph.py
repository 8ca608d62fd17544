"""A parser's transitions must reach accept or reject (dataplane/lang/check/parser_graph.py)."""
from __future__ import annotations

from dataplane.control.switch import Switch
from dataplane.lang.frontend import compile_source
from dataplane.testing.diagnostics import assert_error
from dataplane.testing.skeleton import v1model_program as v1model


def test_parser_that_only_loops_is_rejected():
    """start -> a -> b -> a: every packet would loop for ever."""
    src = v1model(parser="state start { transition a; }\nstate a { transition b; }\nstate b { transition a; }")
    assert_error(src, "parser 'P' never reaches 'accept' or 'reject': its transitions from 'start' only loop "
                      "through a, b, start", at="parser P(", code="parser-graph")


def test_loop_with_an_exit_or_an_implicit_reject_passes():
    """A select case out of the loop, or a state without a transition (it rejects), is an end:
    the first parser's packets (meta.x is 0) leave the loop and go on; the second's state a
    goes to reject."""
    looping = compile_source(v1model(parser="state start { transition a; }\n"
                                            "state a { transition select(meta.x) { 1: a; default: accept; } }"),
                             "ok.p4").program
    assert looping.parsers["P"].states["a"].successors == ("a", "accept")
    assert [(o.port, o.data) for o in Switch(looping).send(0, b"\x01\x02")] == [(0, b"\x01\x02")]
    ending = compile_source(v1model(parser="state start { transition a; }\nstate a { }"), "ok.p4").program
    assert ending.parsers["P"].states["a"].successors == ("reject",)
