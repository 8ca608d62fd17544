"""P4Info of the built-in programs (v1model, PSA, PNA) and of repo test programs: every id has its
kind's prefix and is unique, and every reference (action refs, implementations, direct resources,
default actions) points at an object of the right kind."""
from __future__ import annotations

from pathlib import Path

import pytest

p4info_pb2 = pytest.importorskip("p4.config.v1.p4info_pb2")

from dataplane.control.p4info import build_p4info  # noqa: E402
from dataplane.lang.frontend import compile_file  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
PROGRAMS = sorted((ROOT / "programs").glob("*.p4")) + [ROOT / "tests/stf/psa_meter_register.p4",
                                                        ROOT / "tests/stf/ubpf_pipeline.p4"]
# Each kind's id prefix from the spec (p4info.proto's P4Ids), not from the module under test.
P4Ids = p4info_pb2.P4Ids
KINDS = {"tables": P4Ids.TABLE, "actions": P4Ids.ACTION, "action_profiles": P4Ids.ACTION_PROFILE,
         "counters": P4Ids.COUNTER, "direct_counters": P4Ids.DIRECT_COUNTER, "meters": P4Ids.METER,
         "direct_meters": P4Ids.DIRECT_METER, "registers": P4Ids.REGISTER, "digests": P4Ids.DIGEST,
         "value_sets": P4Ids.VALUE_SET, "controller_packet_metadata": P4Ids.CONTROLLER_HEADER}


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.name)
def test_ids_are_prefixed_unique_and_references_resolve(path):
    info = build_p4info(compile_file(path).program)
    assert info.pkg_info.arch in ("v1model", "psa", "pna", "ubpf")
    by_kind: dict[int, set[int]] = {}
    seen: set[int] = set()
    for field, prefix in KINDS.items():
        for obj in getattr(info, field):
            assert obj.preamble.id >> 24 == prefix, (field, obj.preamble.name)
            assert obj.preamble.id not in seen
            seen.add(obj.preamble.id)
            by_kind.setdefault(prefix, set()).add(obj.preamble.id)
            assert obj.preamble.name.endswith(obj.preamble.alias)
    assert info.tables, "every built-in program has a table"
    for t in info.tables:
        assert {r.id for r in t.action_refs} <= by_kind[P4Ids.ACTION]
        assert t.initial_default_action.action_id in {r.id for r in t.action_refs}
        if t.implementation_id:
            assert t.implementation_id in by_kind[P4Ids.ACTION_PROFILE]
        for rid in t.direct_resource_ids:
            assert rid in by_kind.get(P4Ids.DIRECT_COUNTER, set()) | by_kind.get(P4Ids.DIRECT_METER, set())
        assert [m.id for m in t.match_fields] == sorted({m.id for m in t.match_fields})


def test_psa_meters_registers_and_direct_meters():
    info = build_p4info(compile_file(ROOT / "tests/stf/psa_meter_register.p4").program)
    assert info.pkg_info.arch == "psa"
    assert [m.preamble.name for m in info.meters] == ["MyIngress.m"]
    assert [m.preamble.name for m in info.direct_meters] == ["MyIngress.dm"]
    (reg,) = info.registers
    assert reg.preamble.name == "MyIngress.reg" and reg.size > 0 and reg.type_spec.HasField("bitstring")
