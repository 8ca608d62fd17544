"""A controller written for BMv2 pushes p4c's BMv2 JSON (bare, or in PI's P4DeviceConfig as the
P4 tutorials' p4runtime_lib does) with the program's P4Info: a server started with the program
takes it in place of its own device config; any other server, or another program's P4Info,
is refused with a message saying what to push."""
from __future__ import annotations

import json

import pytest

grpc = pytest.importorskip("grpc")  # no grpcio on PyPy
from p4.config.v1 import p4info_pb2  # noqa: E402
from p4.v1 import p4runtime_pb2  # noqa: E402
from scapy.layers.l2 import Ether  # noqa: E402

from dataplane.control.live import LiveSwitch  # noqa: E402
from dataplane.control.p4runtime import foreign_config  # noqa: E402
from dataplane.control.p4runtime.p4config import P4DeviceConfig  # noqa: E402
from dataplane.control.switch import Switch  # noqa: E402
from dataplane.lang.frontend import compile_file  # noqa: E402

from .conftest import CPU_PORT, RT_P4, load_p4info, rt_device_config  # noqa: E402

BMV2_JSON = json.dumps({"header_types": [], "headers": [], "parsers": [], "pipelines": [],
                        "__meta__": {"version": [2, 23], "compiler": "https://github.com/p4lang/p4c"}}).encode()
Get = p4runtime_pb2.GetForwardingPipelineConfigRequest
T_EXACT, SET_PORT = 33554433, 16777218


def wrapped(data: bytes) -> bytes:
    """The device config as the tutorials' p4runtime_lib.bmv2.buildDeviceConfig sends it."""
    config = P4DeviceConfig(reassign=True, device_data=data)
    return config.SerializeToString()


def reordered(p4info: p4info_pb2.P4Info) -> p4info_pb2.P4Info:
    """The same program's P4Info as another compiler might write it: objects in another order,
    docs, annotations, aliases and pkg_info changed."""
    out = p4info_pb2.P4Info()
    out.CopyFrom(p4info)
    tables = list(out.tables)[::-1]
    del out.tables[:]
    out.tables.extend(tables)
    for t in out.tables:
        t.preamble.doc.brief = "a table"
        t.preamble.annotations.append("@my_note")
        t.preamble.alias = t.preamble.name.replace(".", "_")
        fields = list(t.match_fields)[::-1]
        del t.match_fields[:]
        t.match_fields.extend(fields)
    out.pkg_info.name = "rt.p4"
    return out


@pytest.fixture
def known(start_server):
    """A server started with rt.p4 and its P4Info, as ``dataplane serve rt.p4`` starts it."""
    live = LiveSwitch(Switch(compile_file(RT_P4).program), device_id=1, cpu_port=CPU_PORT)
    return start_server(live, p4info=load_p4info(), device_config=rt_device_config())


def _route_and_send(server, client) -> list[int]:
    u = p4runtime_pb2.Update(type=p4runtime_pb2.Update.INSERT)
    e = u.entity.table_entry
    e.table_id = T_EXACT
    e.match.add(field_id=1).exact.value = b"\x01"
    e.action.action.action_id = SET_PORT
    e.action.action.params.add(param_id=1, value=b"\x06")
    client.write(u)
    out = []
    stop = server.live.listen(lambda port, data: out.append(port))
    server.live.inject(1, bytes(Ether(dst="00:00:00:00:00:01", type=0x9000) / (b"x" * 8)))
    stop()
    return out


@pytest.mark.parametrize("config", [BMV2_JSON, wrapped(BMV2_JSON)], ids=["bare", "p4devconfig"])
def test_bmv2_json_with_the_programs_p4info_runs_the_program(known, connect, config):
    c = connect(known)
    c.arbitrate()
    before = known.live.switch
    c.set_pipeline(p4info=reordered(load_p4info()), device_config=config)
    assert known.live.switch is not before          # a new pipeline: empty state, the same program
    assert _route_and_send(known, c) == [6]
    got = c.stub.GetForwardingPipelineConfig(Get(device_id=1)).config
    assert got.p4_device_config == config           # what the controller pushed, as BMv2 answers


def test_bmv2_json_to_a_server_without_a_program_is_refused_with_what_to_push(start_server, connect):
    server = start_server()
    c = connect(server)
    c.arbitrate()
    for config in (BMV2_JSON, wrapped(BMV2_JSON)):
        with pytest.raises(grpc.RpcError) as err:
            c.set_pipeline(device_config=config)
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        message = err.value.details()
        assert "BMv2 JSON" in message and "dataplane compile PROG --p4info FILE --device-config FILE" in message
        assert "started without a program" in message
    assert "P4DeviceConfig" in message
    assert server.live.switch is None


def test_bmv2_json_with_another_programs_p4info_is_refused(known, connect):
    c = connect(known)
    c.arbitrate()
    before = known.live.switch
    other = load_p4info()
    other.tables[0].size = 7
    del other.actions[-1]
    with pytest.raises(grpc.RpcError) as err:
        c.set_pipeline(p4info=other, device_config=BMV2_JSON)
    message = err.value.details()
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "BMv2 JSON" in message and "rt.p4" in message and "dataplane compile" in message
    assert f"table {other.tables[0].preamble.name} differs (size: pushed 7" in message
    assert f"it has no action {load_p4info().actions[-1].preamble.name}" in message
    assert known.live.switch is before


def test_own_device_config_still_replaces_the_program(known, connect):
    c = connect(known)
    c.arbitrate()
    c.set_pipeline()                                 # this emulator's device config: no P4Info comparison
    assert _route_and_send(known, c) == [6]


def test_own_device_config_in_pis_wrapper_needs_no_program(start_server, connect):
    """What a tutorials controller pushes when its --bmv2-json file is this emulator's device
    config ('dataplane compile PROG --device-config build/PROG.json')."""
    server = start_server()
    c = connect(server)
    c.arbitrate()
    c.set_pipeline(device_config=wrapped(rt_device_config()))
    assert _route_and_send(server, c) == [6]


def test_what_a_device_config_looks_like():
    assert foreign_config.describe(rt_device_config()) is None
    assert foreign_config.describe(wrapped(rt_device_config())) is None
    assert foreign_config.describe(BMV2_JSON) == "BMv2 JSON"
    assert foreign_config.describe(b'{"a": 1}') == "a JSON file that is not BMv2's"
    assert foreign_config.describe(b"\x00\xffbinary") == "a device config of another target"
    assert foreign_config.describe(wrapped(BMV2_JSON)).startswith("BMv2 JSON in a p4.tmp.P4DeviceConfig")
    assert foreign_config.same_program(reordered(load_p4info()), load_p4info()) == []


def test_the_launcher_runs_a_controller_that_imports_pis_p4config(tmp_path):
    """``python -m dataplane.control.p4runtime.p4config SCRIPT ARGS``: SCRIPT imports
    p4.tmp.p4config_pb2 as the tutorials' p4runtime_lib does, and gets its arguments."""
    import subprocess
    import sys

    script = tmp_path / "controller.py"
    script.write_text("import sys\nfrom p4.tmp import p4config_pb2\n"
                      "c = p4config_pb2.P4DeviceConfig(reassign=True, device_data=sys.argv[1].encode())\n"
                      "sys.stdout.buffer.write(c.SerializeToString())\n")
    r = subprocess.run([sys.executable, "-m", "dataplane.control.p4runtime.p4config", str(script), '{"x": 1}'],
                       capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr.decode()
    assert foreign_config.describe(r.stdout) == "a JSON file that is not BMv2's in a p4.tmp.P4DeviceConfig " \
                                                "(as the P4 tutorials' p4runtime_lib sends it)"
