"""Key fields and action parameters whose @id numbers them against the program's order
(ids_out_of_order.p4): each value lands on the field the id names, on write, on the packet
and on read."""
from __future__ import annotations

from pathlib import Path

import pytest

grpc = pytest.importorskip("grpc")  # no grpcio on PyPy
from p4.v1 import p4runtime_pb2

from dataplane.control.device_config import make_device_config
from dataplane.control.p4info import build_p4info
from dataplane.lang.frontend import compile_file

PROGRAM = Path(__file__).with_name("ids_out_of_order.p4")


def test_values_follow_their_ids_not_their_positions(start_server, connect):
    p4info = build_p4info(compile_file(PROGRAM).program)
    table = next(t for t in p4info.tables if t.preamble.name == "Ing.t")
    action = next(a for a in p4info.actions if a.preamble.name == "Ing.set")
    assert [f.id for f in table.match_fields] == [2, 1] and [p.id for p in action.params] == [2, 1]

    server = start_server()
    client = connect(server)
    client.arbitrate((0, 1))
    client.set_pipeline(p4info, make_device_config(PROGRAM))
    e = p4runtime_pb2.TableEntry(table_id=table.preamble.id)
    e.match.add(field_id=1).exact.value = b"\x22\x33"        # b, the second key field
    e.match.add(field_id=2).exact.value = b"\x11"            # a, the first
    e.action.action.action_id = action.preamble.id
    e.action.action.params.add(param_id=1, value=b"\xbb\xcc")  # y
    e.action.action.params.add(param_id=2, value=b"\xaa")      # x
    client.write(p4runtime_pb2.Update(type=p4runtime_pb2.Update.INSERT, entity=p4runtime_pb2.Entity(table_entry=e)))

    outputs = server.live.switch.send(0, bytes([0x11, 0x22, 0x33, 0, 0, 0]))
    assert [(o.port, o.data) for o in outputs] == [(1, bytes([0x11, 0x22, 0x33, 0xAA, 0xBB, 0xCC]))]

    read = client.read(p4runtime_pb2.Entity(table_entry=p4runtime_pb2.TableEntry(table_id=table.preamble.id)))
    got = read[0].table_entry
    assert {m.field_id: m.exact.value for m in got.match} == {1: b"\x22\x33", 2: b"\x11"}
    assert {p.param_id: p.value for p in got.action.action.params} == {1: b"\xbb\xcc", 2: b"\xaa"}
