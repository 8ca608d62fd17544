"""tools/p4info_compare.py and the p4info suite of tools/conformance.py: P4Info equality ignoring
the order of repeated fields, the first differing field as the failure's category."""
from __future__ import annotations

from pathlib import Path

import pytest

p4info_pb2 = pytest.importorskip("p4.config.v1.p4info_pb2")



@pytest.fixture(scope="module")
def compare(load_tool):
    return load_tool("p4info_compare")


GOLDEN = """
tables { preamble { id: 2 name: "b" alias: "b" } action_refs { id: 5 } action_refs { id: 6 } size: 1024 }
tables { preamble { id: 1 name: "a" alias: "a" } size: 1024 }
"""


def _ours(refs=(6, 5), size=1024):
    info = p4info_pb2.P4Info()
    a = info.tables.add()
    a.preamble.id, a.preamble.name, a.preamble.alias, a.size = 1, "a", "a", 1024
    b = info.tables.add()
    b.preamble.id, b.preamble.name, b.preamble.alias, b.size = 2, "b", "b", size
    for r in refs:
        b.action_refs.add().id = r
    return info


def test_order_of_repeated_fields_does_not_matter(compare):
    assert compare.compare_text(_ours(), GOLDEN) is None


def test_the_first_difference_names_the_field_path(compare):
    path, detail = compare.compare_text(_ours(size=64), GOLDEN)
    assert path == "tables.size" and "64" in detail
    path, _ = compare.compare_text(_ours(refs=(5,)), GOLDEN)
    assert path == "tables.action_refs count"


def test_the_p4info_suite_collects_samples_with_a_golden_file(tmp_path, load_tool):
    conformance = load_tool("conformance")
    samples = tmp_path / "testdata" / "p4_16_samples"
    outputs = tmp_path / "testdata" / "p4_16_samples_outputs"
    samples.mkdir(parents=True)
    outputs.mkdir()
    for name in ("with-bmv2", "without-bmv2"):
        (samples / f"{name}.p4").write_text("#include <core.p4>\n#include <v1model.p4>\n")
    (outputs / "with-bmv2.p4.p4info.txtpb").write_text("")
    jobs = conformance.collect(tmp_path, ["p4info"], None)
    assert [(s, Path(p).name) for s, p in jobs] == [("p4info", "with-bmv2.p4")]
