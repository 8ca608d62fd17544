"""The server runs any architecture: a PSA router and a PNA DPU configured over P4Runtime
with the P4Info generated for them."""
from __future__ import annotations

import pytest

grpc = pytest.importorskip("grpc")  # no grpcio on PyPy
from p4.v1 import p4runtime_pb2 as pb  # noqa: E402
from scapy.layers.inet import IP  # noqa: E402
from scapy.layers.l2 import Ether  # noqa: E402

from dataplane.control.device_config import make_device_config  # noqa: E402
from dataplane.control.p4info import build_p4info  # noqa: E402
from dataplane.lang.frontend import compile_file  # noqa: E402
from dataplane.resources import builtin_program  # noqa: E402


def _pipeline(connect, server, name):
    path = builtin_program(name)
    info = build_p4info(compile_file(path).program)
    c = connect(server)
    c.arbitrate()
    c.set_pipeline(info, make_device_config(path))
    tables = {t.preamble.name: t for t in info.tables}
    actions = {a.preamble.name: a for a in info.actions}
    return c, tables, actions


def _action(entry, action, *params):
    entry.action.action.action_id = action.preamble.id
    for p, v in zip(action.params, params):
        entry.action.action.params.add(param_id=p.id, value=v)


def test_a_psa_router(start_server, connect):
    server = start_server()
    c, tables, actions = _pipeline(connect, server, "psa_router")
    assert server.live.switch.dp.architecture == "psa"
    t = tables["MyIngress.ipv4_lpm"]
    e = pb.TableEntry(table_id=t.preamble.id)
    e.match.add(field_id=1).lpm.CopyFrom(pb.FieldMatch.LPM(value=bytes([10, 0, 2, 0]), prefix_len=24))
    _action(e, actions["MyIngress.ipv4_forward"], b"\x02\x02", b"\x02")
    c.write(pb.Update(type=pb.Update.INSERT, entity=pb.Entity(table_entry=e)))
    out = []
    stop = server.live.listen(lambda p, d: out.append(p))
    server.live.inject(1, bytes(Ether() / IP(dst="10.0.2.2", ttl=9)))
    stop()
    assert out == [2]
    [got] = c.read(pb.Entity(table_entry=pb.TableEntry(table_id=t.preamble.id)))
    assert got.table_entry.match[0].lpm.prefix_len == 24


def test_a_pna_dpu(start_server, connect):
    server = start_server()
    c, tables, actions = _pipeline(connect, server, "vxlan_dpu")
    assert server.live.switch.dp.architecture == "pna"
    vtep = tables["MainControlImpl.vtep_config"]
    d = pb.TableEntry(table_id=vtep.preamble.id, is_default_action=True)
    _action(d, actions["MainControlImpl.set_vtep"], bytes([192, 168, 0, 1]), b"\x02\x00\x00\x00\x01\x00",
            b"\x02\x00\x00\x00\x0a\x01", b"\x00")
    tenant = tables["MainControlImpl.tenant_of_port"]
    e = pb.TableEntry(table_id=tenant.preamble.id)
    e.match.add(field_id=1).exact.value = b"\x02"
    _action(e, actions["MainControlImpl.set_tenant"], b"\x07")
    c.write(pb.Update(type=pb.Update.MODIFY, entity=pb.Entity(table_entry=d)),
            pb.Update(type=pb.Update.INSERT, entity=pb.Entity(table_entry=e)))
    q = pb.Entity(table_entry=pb.TableEntry(table_id=vtep.preamble.id, is_default_action=True))
    [got] = c.read(q)
    assert got.table_entry.action.action.params[0].value == bytes([192, 168, 0, 1])
    assert server.live.switch.table_entries("MainControlImpl.tenant_of_port")[0].args == (7,)
