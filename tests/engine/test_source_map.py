"""P4 positions in the generated pipeline: comments, the line map, and tracebacks through it."""
from __future__ import annotations

import traceback

import pytest

from dataplane.arch.v1model import V1ModelSwitch
from dataplane.control.switch import Switch
from dataplane.engine.codegen.stmt import StmtGen
from dataplane.engine.source_map import p4_location
from dataplane.errors import InternalError
from dataplane.ir import stmt as S
from dataplane.lang.frontend import compile_source
from dataplane.testing.skeleton import v1model_program

SOURCE = v1model_program(
    ingress_locals="""
    action fwd(bit<9> p) { sm.egress_spec = p; }
    table t { key = { meta.x : exact; } actions = { fwd; NoAction; } default_action = NoAction(); }""",
    ingress="""
        meta.y = 3;
        mark_to_drop(sm);
        t.apply();""",
)
LINES = SOURCE.splitlines()


def line_of(text: str) -> tuple[int, int]:
    """1-based line and column of the first occurrence of ``text`` in SOURCE."""
    for number, line in enumerate(LINES, 1):
        if text in line:
            return number, line.index(text) + 1
    raise AssertionError(text)


@pytest.fixture(scope="module")
def pipeline():
    return Switch(compile_source(SOURCE, "prog.p4").program).dp.pipeline


def test_each_generated_statement_line_ends_with_its_p4_position(pipeline):
    line, col = line_of("meta.y = 3;")
    assert f"v_meta.y = 3  # prog.p4:{line}:{col}" in pipeline.source
    table_line, _ = line_of("table t")
    assert f"_ctx.trace.table('IG.t', _k, _e, 'prog.p4:{table_line}')" in pipeline.source


def test_the_line_map_gives_the_p4_span_of_a_generated_line(pipeline):
    generated = pipeline.source.splitlines()
    number = next(i for i, text in enumerate(generated, 1) if text.lstrip().startswith("v_meta.y = 3"))
    span = pipeline.line_map()[number]
    assert (span.file, span.line, span.col) == ("prog.p4", *line_of("meta.y = 3;"))


def test_an_exception_in_an_extern_shows_the_p4_line_in_its_traceback(monkeypatch):
    """An extern that fails (here a stand-in for mark_to_drop) leaves a Python traceback whose
    generated frame shows the P4 file and line, and ``p4_location`` finds the span."""
    bind = V1ModelSwitch._bind_functions

    def failing(self):
        functions = dict(bind(self))

        def mark_to_drop(ctx, sm):
            raise RuntimeError("extern failed")
        functions["mark_to_drop"] = mark_to_drop
        return functions
    monkeypatch.setattr(V1ModelSwitch, "_bind_functions", failing)
    sw = Switch(compile_source(SOURCE, "prog.p4").program)
    with pytest.raises(RuntimeError) as info:
        sw.process(0, b"\x00")
    line, col = line_of("mark_to_drop(sm);")
    text = "".join(traceback.format_exception(type(info.value), info.value, info.value.__traceback__))  # 3.9: three args
    assert f"f_mark_to_drop(_ctx, v_sm)  # prog.p4:{line}:{col}" in text
    assert str(p4_location(info.value.__traceback__)) == f"prog.p4:{line}:{col}"


def test_a_statement_without_a_generator_is_an_internal_error():
    """The generators dispatch through ``ir.node.Visitor``; a node class nobody generates is a bug."""
    gen = StmtGen(compile_source(SOURCE, "prog.p4").program, None)
    with pytest.raises(InternalError, match="no code generator for statement Stmt"):
        gen.stmt(S.Stmt())
