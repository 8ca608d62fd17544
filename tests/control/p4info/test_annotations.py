"""Annotations as p4c prints them into P4Info (dataplane.control.p4info.annotations)."""
from __future__ import annotations

import pytest

p4info_pb2 = pytest.importorskip("p4.config.v1.p4info_pb2")

from dataplane.control.p4info.annotations import add_annotations, format_annotation  # noqa: E402
from dataplane.control.p4info.ids import P4InfoError  # noqa: E402
from dataplane.ir.node import Annotation  # noqa: E402


def test_parsed_annotations_print_their_expressions_and_others_their_tokens():
    assert format_annotation(Annotation("noWarn", '"unused"')) == '@noWarn("unused")'
    assert format_annotation(Annotation("defaultonly")) == "@defaultonly"
    # an annotation p4c does not parse keeps its tokens, one space apart
    assert format_annotation(Annotation("my_anno", '"a",1+ 2')) == '@my_anno("a" , 1 + 2)'


def test_name_id_and_documentation_stay_out_of_annotations():
    pre = p4info_pb2.Preamble()
    add_annotations(pre, (Annotation("name", '"x"'), Annotation("id", "3"), Annotation("brief", '"b"'),
                          Annotation("hidden")))
    assert list(pre.annotations) == ["@hidden"]


def test_structured_annotations_are_folded_to_literals():
    pre = p4info_pb2.Preamble()
    add_annotations(pre, (Annotation("L", '1, "s", true, 1==2, 5+6, 8w3', structured=True),
                          Annotation("KV", 'a="t", b=2*3', structured=True)))
    lst, kv = pre.structured_annotations
    values = [e.WhichOneof("value") and getattr(e, e.WhichOneof("value")) for e in lst.expression_list.expressions]
    assert values == [1, "s", True, False, 11, 3]
    assert [(p.key, p.value.WhichOneof("value")) for p in kv.kv_pair_list.kv_pairs] == [("a", "string_value"),
                                                                                        ("b", "int64_value")]
    assert kv.kv_pair_list.kv_pairs[1].value.int64_value == 6
    with pytest.raises(P4InfoError, match="compile-time"):
        add_annotations(pre, (Annotation("Bad", "hdr.x", structured=True),))


def test_comment_lines_in_a_multi_line_annotation_string_stay():
    """p4c keeps `//` lines of a string that spans lines (SAI P4's @entry_restriction, as its
    committed P4Info files show): the annotation prints the string with them, byte for byte."""
    from dataplane.control.p4info import build_p4info
    from dataplane.lang.frontend import compile_source
    from dataplane.testing.skeleton import v1model_program

    locals_ = ('action a() {}\n@entry_restriction("\n    // only non-zero\n    x != 0; /* kept */\n  ")\n'
               "table t { key = { meta.x: exact @name(\"x\"); } actions = { a; } } // dropped\n")
    info = build_p4info(compile_source(v1model_program(ingress_locals=locals_, ingress="t.apply();"), "p.p4").program)
    assert list(info.tables[0].preamble.annotations) == [
        '@entry_restriction("\n    // only non-zero\n    x != 0; /* kept */\n  ")']


@pytest.mark.parametrize("body, value", [("16", 16), ("32w16", 16), ("0x10", 16), ("8w0x1F", 31), ("1_000", 1000),
                                         ("016", 16)])
def test_max_group_size_takes_any_integer_literal(body, value):
    """@max_group_size(32w16) is the constant 16 (p4c parses it as a Constant, width prefix and all,
    as PINS' programs write it); a leading 0 is not octal in P4."""
    from dataplane.control.p4info import build_p4info
    from dataplane.lang.frontend import compile_source
    from dataplane.testing.skeleton import v1model_program

    locals_ = (f"@max_group_size({body}) action_selector(HashAlgorithm.crc16, 32w64, 32w8) sel;\n"
               "action a(bit<9> p) { sm.egress_spec = p; }\n"
               "table t { key = { sm.ingress_port: exact; sm.ingress_port: selector; } actions = { a; }"
               " implementation = sel; }\n")
    info = build_p4info(compile_source(v1model_program(ingress_locals=locals_, ingress="t.apply();"), "p.p4").program)
    assert info.action_profiles[0].max_group_size == value


@pytest.mark.parametrize("body", ["x", "-1", "16.0", '"16"'])
def test_max_group_size_refuses_what_is_not_an_integer_literal(body):
    """Anything else is a located P4InfoError, not a traceback."""
    from dataplane.control.p4info.annotations import int_value

    with pytest.raises(P4InfoError, match="needs an integer"):
        int_value(Annotation("max_group_size", body), "sel")


def test_string_concatenation_folds_where_p4c_parses_expressions():
    """@name("t" ++ "_a") names the table t_a; a structured annotation's "X_" ++ "Y" is "X_Y";
    an unstructured vendor annotation keeps its tokens as written (spec-issue1297-string-cat.p4);
    "a" ++ "b" in code is the string "ab"."""
    from dataplane.control.p4info import build_p4info
    from dataplane.lang.frontend import compile_source
    from dataplane.testing.skeleton import v1model_program

    locals_ = ('@S[a = "X_" ++ "Y"] @U(a = "X_" ++ "Y") action a() { log_msg("con" ++ "cat"); }\n'
               '@name("tab" ++ "_" ++ "a") table t { key = { meta.x: exact; } actions = { a; } }\n')
    program = compile_source(v1model_program(ingress_locals=locals_, ingress="t.apply();"), "p.p4").program
    info = build_p4info(program)
    assert info.tables[0].preamble.name == "IG.tab_a"
    action = next(a for a in info.actions if a.preamble.name == "IG.a")
    assert action.preamble.structured_annotations[0].kv_pair_list.kv_pairs[0].value.string_value == "X_Y"
    assert list(action.preamble.annotations) == ['@U(a = "X_" ++ "Y")']
    from dataplane.control.switch import Switch

    sw = Switch(program)
    sw.table_add("tab_a", "a", ["0"], [])
    sw.send(0, b"\x00" * 20)
    assert "concat" in sw.dp.log_messages
