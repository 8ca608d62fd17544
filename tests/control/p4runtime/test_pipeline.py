"""SetForwardingPipelineConfig with every action, GetForwardingPipelineConfig, the device config."""
from __future__ import annotations

import grpc
import pytest
from p4.v1 import p4runtime_pb2

Req = p4runtime_pb2.SetForwardingPipelineConfigRequest
Get = p4runtime_pb2.GetForwardingPipelineConfigRequest
REGISTER = 369098753


def _get(client, response_type=Get.ALL):
    return client.stub.GetForwardingPipelineConfig(Get(device_id=1, response_type=response_type)).config


def _write_register(client, index, value):
    u = p4runtime_pb2.Update(type=p4runtime_pb2.Update.MODIFY)
    u.entity.register_entry.register_id = REGISTER
    u.entity.register_entry.index.index = index
    u.entity.register_entry.data.bitstring = value
    client.write(u)


def _read_register(client, index):
    e = p4runtime_pb2.Entity()
    e.register_entry.register_id, e.register_entry.index.index = REGISTER, index
    return client.read(e)[0].register_entry.data.bitstring


def test_verify_checks_without_committing_and_save_then_commit(start_server, connect):
    server = start_server()
    c = connect(server)
    c.arbitrate()
    c.set_pipeline(action=Req.VERIFY)
    assert not _get(c).HasField("p4info") and server.live.switch is None
    c.set_pipeline(action=Req.VERIFY_AND_SAVE, cookie=7)
    assert server.live.switch is None
    c.set_pipeline(action=Req.COMMIT)     # COMMIT carries no config: the saved one
    assert server.live.switch is not None and _get(c).cookie.cookie == 7
    with pytest.raises(grpc.RpcError) as err:
        c.set_pipeline(action=Req.COMMIT)
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION


def test_get_answers_with_the_parts_asked_for(rt):
    _, c = rt
    full = _get(c)
    assert full.p4info.tables and full.p4_device_config.startswith(b"// dataplane device config")
    assert not _get(c, Get.COOKIE_ONLY).HasField("p4info") and not _get(c, Get.COOKIE_ONLY).p4_device_config
    assert _get(c, Get.P4INFO_AND_COOKIE).p4info == full.p4info
    only = _get(c, Get.DEVICE_CONFIG_AND_COOKIE)
    assert only.p4_device_config == full.p4_device_config and not only.HasField("p4info")


def test_bad_device_configs_and_p4infos(rt):
    server, c = rt
    before = server.live.switch
    for bad in (b"\xff\xfe", b"{\"json\": 1}", b"// dataplane device config: format=p4-preprocessed version=1\n"
                b"control broken {"):
        with pytest.raises(grpc.RpcError) as err:
            c.set_pipeline(device_config=bad)
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    from google.protobuf import text_format
    from p4.config.v1 import p4info_pb2
    info = p4info_pb2.P4Info()
    text_format.Parse('tables { preamble { id: 33554499 name: "MyIngress.nope" } }', info)
    with pytest.raises(grpc.RpcError) as err:
        c.set_pipeline(p4info=info)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "nope" in err.value.details()
    assert server.live.switch is before


def test_commit_starts_empty_and_reconcile_keeps_state(rt):
    server, c = rt
    _write_register(c, 2, b"\x2a")
    c.set_pipeline(action=Req.RECONCILE_AND_COMMIT)          # the same pipeline: state stays
    assert _read_register(c, 2) == b"\x2a"
    other = _get(c).p4_device_config + b"// a different device config\n"
    c.set_pipeline(device_config=other, action=Req.RECONCILE_AND_COMMIT)   # a new switch, state carried over
    assert _get(c).p4_device_config == other and _read_register(c, 2) == b"\x2a"
    c.set_pipeline()                                           # VERIFY_AND_COMMIT: a fresh switch
    assert _read_register(c, 2) == b"\x00"

def test_nothing_before_a_pipeline(start_server, connect):
    server = start_server()
    c = connect(server)
    c.arbitrate()
    e = p4runtime_pb2.Entity()
    e.table_entry.SetInParent()
    with pytest.raises(grpc.RpcError) as err:
        c.read(e)
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert not _get(c).HasField("p4info")
