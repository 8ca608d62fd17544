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
