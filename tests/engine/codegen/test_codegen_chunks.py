"""Big programs' ``build`` is split into module-level parts and compiled in pieces; the switch
behaves the same, tracebacks keep their line numbers, and what the splitter does not know it leaves
alone."""
from __future__ import annotations

import sys
import traceback
from pathlib import Path

import pytest

from dataplane.control.switch import Switch
from dataplane.engine.backend import generate
from dataplane.engine.codegen import chunks as codegen_chunks
from dataplane.engine.codegen.chunks import compile_in_pieces, piece_filename, split_build
from dataplane.lang.frontend import compile_source

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tools"))
from gen_big_program import big_program  # noqa: E402


def _packet(kinds: list[int], b: int) -> bytes:
    """One 14-byte header per entry of ``kinds`` (kind, flags, a, b, c) as gen_big_program lays them out."""
    return b"".join(bytes([k, 0, 0, 0]) + b.to_bytes(4, "big") + bytes(6) for k in kinds)


def _run(program, kinds: list[int]) -> list:
    sw = Switch(program)
    sw.table_add("t_h1", "set_h1", [5, (0, 0)], {"v": 3, "port": 2}, priority=1)
    sw.table_add("t_h2", "drop_h2", [5, (0, 0)], priority=1)
    return [sw.send(0, _packet(kinds, 5)), sw.send(0, _packet(kinds[:1] + [0], 5))]


def test_a_big_program_is_split_and_forwards_as_one_build(monkeypatch):
    """Forcing parts of one closure each changes the module's shape, not a packet's fate."""
    program = compile_source(big_program(4)).program
    whole = generate(program)
    assert "_build_part_" not in whole
    expected = _run(program, [1, 1, 1, 0])
    assert expected[0] == [] and expected[1][0].port == 2     # h2's table drops; h1's forwards
    monkeypatch.setattr(codegen_chunks, "MAX_DEFS", 1)
    monkeypatch.setattr(codegen_chunks, "PIECE_LINES", 30)
    split = generate(program)
    assert split.count("def _build_part_") > 10
    assert _run(program, [1, 1, 1, 0]) == expected


def test_parts_take_earlier_names_as_parameters_and_return_their_own():
    body = ["    ACTIONS = {}", "    x_r = _rt.instances['r']",
            "    def A_a(_ctx, _a):", "        x_r.read(_a)", "    ACTIONS['a'] = A_a",
            "    def A_b(_ctx, _a):", "        return A_a(_ctx, _a)",
            "    return {'actions': ACTIONS}"]
    parts, new_body = split_build(body, max_defs=1)
    assert new_body[0] == "    ACTIONS, x_r, A_a, = _build_part_0(_rt)"
    assert new_body[1] == "    A_b, = _build_part_1(A_a)"
    assert new_body[-1] == "    return {'actions': ACTIONS}"
    namespace: dict = {}
    exec("\n".join(parts + ["def build(_rt):"] + new_body), namespace)


def test_a_name_used_before_it_is_bound_keeps_user_and_binder_in_one_part():
    """A closure may call a function bound later in build (looked up when it runs)."""
    body = ["    def A_a(x):", "        return A_b(x) + 1",
            "    def A_c(x):", "        return x",
            "    def A_b(x):", "        return 2 * x",
            "    return {'a': A_a}"]
    parts, new_body = split_build(body, max_defs=1)
    assert len(new_body) == 2    # A_a, A_c and A_b share a part
    namespace: dict = {}
    exec("\n".join(parts + ["def build(_rt):"] + new_body), namespace)
    assert namespace["build"](None)["a"](3) == 7


@pytest.mark.parametrize("line", ["    for x in range(3):", "    import os", "    x += 1",
                                  "    foo(1,", "    with open(f) as g:", "    global y"])
def test_an_unknown_statement_in_build_keeps_one_build(line):
    body = ["    def A_a(x):", "        return x", "    def A_b(x):", "        return x", line,
            "        pass", "    return {}"]
    assert split_build(body, max_defs=1) is None


def test_a_name_bound_in_two_statements_keeps_one_build():
    body = ["    def A_a(x):", "        return x", "    A_a = None", "    def A_b(x):", "        return x",
            "    return {}"]
    assert split_build(body, max_defs=1) is None


def test_a_later_piece_is_named_by_its_offset_and_shows_its_lines():
    source = "".join(f"x{i} = {i}\n" for i in range(50)) + "def f():\n    return 1 // 0\n" + "y = 2\n" * 10
    namespace: dict = {}
    compile_in_pieces(source, "<p4:test-pieces>", namespace, piece_lines=7)
    assert namespace["x49"] == 49
    with pytest.raises(ZeroDivisionError) as info:
        namespace["f"]()
    frame = traceback.extract_tb(info.value.__traceback__)[-1]
    assert frame.filename == piece_filename("<p4:test-pieces>", 49) == "<p4:test-pieces@49>"
    assert (49 + frame.lineno, frame.line) == (52, "return 1 // 0")


def test_fresh_python_names_take_the_first_free_suffix():
    """Names.fresh resumes where it last stopped; the names are those a search from 0 gives."""
    from dataplane.engine.codegen.stmt import Names

    names = Names({"x": "v_x_1"})
    assert [names.fresh("x") for _ in range(3)] == ["v_x", "v_x_2", "v_x_3"]
    assert names.fresh("x_4") == "v_x_4"
    assert names.fresh("x") == "v_x_5"


def test_a_syntax_error_in_a_later_piece_names_its_line_in_the_whole_source():
    source = "".join(f"x{i} = {i}\n" for i in range(20)) + "y = (\n"
    with pytest.raises(SyntaxError) as info:
        compile_in_pieces(source, "<p4:test-syntax>", {}, piece_lines=7)
    assert info.value.lineno == 21
