"""Arbitration keeps roles apart (P4Runtime 1.4, section 5.3): election ids must be distinct
within a role, but the same election id under two roles is two independent primaries, each
of which writes."""
from __future__ import annotations

import pytest

grpc = pytest.importorskip("grpc")  # no grpcio on PyPy
from google.rpc import code_pb2
from p4.v1 import p4runtime_pb2

SEEN = 369098753     # rt.p4's register MyIngress.seen


def register_write(value: bytes) -> p4runtime_pb2.Update:
    u = p4runtime_pb2.Update(type=p4runtime_pb2.Update.MODIFY)
    u.entity.register_entry.register_id = SEEN
    u.entity.register_entry.index.index = 1
    u.entity.register_entry.data.bitstring = value
    return u


def test_the_same_election_id_under_two_roles_makes_two_primaries(rt, connect):
    """The default role's primary has election id 1; another client takes election id 1 under
    role "other": accepted (OK, primary of its role), and both write."""
    server, first = rt
    second = connect(server)
    told = second.arbitrate((0, 1), role="other")
    assert told.status.code == code_pb2.OK and told.election_id.low == 1 and told.role.name == "other"
    second.write(register_write(b"\x07"))
    first.write(register_write(b"\x08"))
    [cell] = first.read(p4runtime_pb2.Entity(register_entry=p4runtime_pb2.RegisterEntry(
        register_id=SEEN, index=p4runtime_pb2.Index(index=1))))
    assert cell.register_entry.data.bitstring == b"\x08"
    # ... while within one role the id stays taken
    third = connect(server)
    with pytest.raises(grpc.RpcError) as err:
        third.arbitrate((0, 1), role="other")
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
