"""Arbitration: primary and backups by election id, per role; only the primary writes."""
from __future__ import annotations

import grpc
import pytest
from google.rpc import code_pb2
from p4.v1 import p4runtime_pb2


def test_the_highest_election_id_is_primary_and_others_are_told_who_leads(start_server, connect):
    server = start_server()
    a, b = connect(server), connect(server)
    first = a.arbitrate((0, 5))
    assert first.status.code == code_pb2.OK and first.election_id.low == 5
    backup = b.arbitrate((0, 3))
    assert backup.status.code == code_pb2.ALREADY_EXISTS and backup.election_id.low == 5
    # b outbids a: both hear of the new primary
    now = b.arbitrate((0, 9))
    assert now.status.code == code_pb2.OK
    demoted = a.next("arbitration")
    assert demoted.status.code == code_pb2.ALREADY_EXISTS and demoted.election_id.low == 9


def test_a_backup_write_is_permission_denied(rt, connect):
    server, primary = rt
    backup = connect(server)
    backup.arbitrate((0, 0))
    with pytest.raises(grpc.RpcError) as err:
        backup.set_pipeline()
    assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
    update = p4runtime_pb2.Update(type=p4runtime_pb2.Update.MODIFY)
    update.entity.register_entry.register_id = 369098753
    update.entity.register_entry.data.bitstring = b"\x01"
    with pytest.raises(grpc.RpcError) as err:
        backup.write(update)
    assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
    primary.write(update)          # the primary's write goes through
    assert backup.read(p4runtime_pb2.Entity(register_entry=p4runtime_pb2.RegisterEntry(
        register_id=369098753, index=p4runtime_pb2.Index(index=3))))[0].register_entry.data.bitstring == b"\x01"


def test_when_the_primary_leaves_the_backup_takes_over(start_server, connect):
    server = start_server()
    a, b = connect(server), connect(server)
    a.arbitrate((0, 7))
    b.arbitrate((0, 2))
    a.close()
    assert b.next("arbitration").status.code == code_pb2.OK


def test_roles_have_their_own_primary(start_server, connect):
    server = start_server()
    a, b = connect(server), connect(server)
    assert a.arbitrate((0, 7)).status.code == code_pb2.OK
    assert b.arbitrate((0, 2), role="other").status.code == code_pb2.OK


def test_a_duplicate_election_id_or_a_wrong_device_ends_the_stream(start_server, connect):
    server = start_server()
    a, b, c = connect(server), connect(server), connect(server)
    a.arbitrate((0, 7))
    with pytest.raises(grpc.RpcError) as err:
        b.arbitrate((0, 7))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(grpc.RpcError) as err:
        c.arbitrate((0, 8), device_id=42)
    assert err.value.code() == grpc.StatusCode.NOT_FOUND


def test_capabilities_and_several_servers_in_one_process(start_server, connect):
    from dataplane.control.live import LiveSwitch

    one, two = start_server(), start_server(LiveSwitch(None, device_id=2))
    assert one.port != two.port
    assert connect(two, device_id=2).arbitrate((0, 1)).status.code == code_pb2.OK
    caps = connect(one).stub.Capabilities(p4runtime_pb2.CapabilitiesRequest())
    assert caps.p4runtime_api_version.startswith("1.")
