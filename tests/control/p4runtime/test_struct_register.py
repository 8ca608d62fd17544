"""A register of a struct type over P4Runtime: a P4Data struct whose members follow the
struct's fields (bit, negative int, bool), written, read back and seen by the Switch API."""
from __future__ import annotations

from pathlib import Path

import pytest

grpc = pytest.importorskip("grpc")  # no grpcio on PyPy
from p4.v1 import p4runtime_pb2

from dataplane.control.device_config import make_device_config
from dataplane.control.p4info import build_p4info
from dataplane.lang.frontend import compile_file

PROGRAM = Path(__file__).parents[2] / "stf" / "extern_struct_register.p4"


@pytest.fixture
def served(start_server, connect):
    p4info = build_p4info(compile_file(PROGRAM).program)
    server = start_server()
    client = connect(server)
    client.arbitrate((0, 1))
    client.set_pipeline(p4info, make_device_config(PROGRAM))
    reg = next(r for r in p4info.registers if r.preamble.name.endswith(".r"))
    return server, client, reg


def _update(reg_id: int, index: int, members) -> p4runtime_pb2.Update:
    u = p4runtime_pb2.Update(type=p4runtime_pb2.Update.MODIFY)
    e = u.entity.register_entry
    e.register_id, e.index.index = reg_id, index
    struct = e.data.struct
    for kind, value in members:
        setattr(struct.members.add(), kind, value)
    return u


def test_a_struct_cell_is_written_and_read_as_p4data(served):
    server, client, reg = served
    assert reg.type_spec.WhichOneof("type_spec") == "struct"
    client.write(_update(reg.preamble.id, 2, [("bitstring", b"\x12\x34"), ("bitstring", b"\xfd"),
                                              ("bitstring", b"\x07"), ("bool", True)]))
    assert server.live.switch.register_read(reg.preamble.name, 2) == {"a": 0x1234, "s": -3, "b": 7, "flag": True}
    q = p4runtime_pb2.Entity()
    q.register_entry.register_id, q.register_entry.index.index = reg.preamble.id, 2
    [got] = client.read(q)
    members = got.register_entry.data.struct.members
    assert [m.WhichOneof("data") for m in members] == ["bitstring"] * 3 + ["bool"]
    assert [m.bitstring for m in members[:3]] + [members[3].bool] == [b"\x12\x34", b"\xfd", b"\x07", True]


def test_a_struct_cell_of_the_wrong_shape_is_refused(served):
    _, client, reg = served
    with pytest.raises(grpc.RpcError) as err:
        client.write(_update(reg.preamble.id, 0, [("bitstring", b"\x01")]))
    assert err.value.code() == grpc.StatusCode.UNKNOWN     # a batch error: the detail says why
    with pytest.raises(grpc.RpcError):
        client.write(_update(reg.preamble.id, 0, [("bitstring", b"\x01"), ("bitstring", b"\x01"),
                                                  ("bitstring", b"\x01"), ("bitstring", b"\x01")]))
