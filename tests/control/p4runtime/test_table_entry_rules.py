"""Table entries over P4Runtime at the edges of the spec (P4Runtime 1.4, section 9.1):

* an LPM prefix may be as long as the field (a /32 on a 32-bit field), not longer;
* a Read whose TableEntry gives a priority returns only the entries of that priority;
* MODIFY may re-point an entry from an action profile member to a direct action, and reads
  then give the direct action;
* DELETE of an entry takes its direct meter configuration with it.
"""
from __future__ import annotations

import pytest

grpc = pytest.importorskip("grpc")  # no grpcio on PyPy
from google.rpc import code_pb2, status_pb2
from p4.v1 import p4runtime_pb2 as pb
from scapy.layers.inet import IP
from scapy.layers.l2 import Ether

U = pb.Update
T_LPM, T_TERNARY, T_ECMP = 33554434, 33554435, 33554437
SET_PORT, FORWARD = 16777218, 16777220
PROFILE = 285212673


def update(kind, e):
    u = U(type=kind)
    u.entity.table_entry.CopyFrom(e)
    return u


def read(client, **fields):
    return [e.table_entry for e in client.read(pb.Entity(table_entry=pb.TableEntry(**fields)))]


def codes(err) -> list:
    status = status_pb2.Status.FromString(dict(err.trailing_metadata())["grpc-status-details-bin"])
    out = []
    for d in status.details:
        e = pb.Error()
        d.Unpack(e)
        out.append(e.canonical_code)
    return out


def ports(server, packet) -> list:
    out = []
    stop = server.live.listen(lambda p, d: out.append(p))
    server.live.inject(1, bytes(packet))
    stop()
    return out


def lpm(value: bytes, plen: int, port: int) -> pb.TableEntry:
    e = pb.TableEntry(table_id=T_LPM)
    e.match.add(field_id=1).lpm.CopyFrom(pb.FieldMatch.LPM(value=value, prefix_len=plen))
    e.action.action.action_id = FORWARD
    e.action.action.params.add(param_id=1, value=b"\x01")
    e.action.action.params.add(param_id=2, value=bytes([port]))
    return e


def test_an_lpm_prefix_as_long_as_the_field_is_accepted(rt):
    """On the 32-bit t_lpm key /31 and /32 are accepted and read back as given; /33 is
    INVALID_ARGUMENT (nothing is installed)."""
    server, c = rt
    c.write(update(U.INSERT, lpm(bytes([10, 0, 0, 4]), 31, 4)), update(U.INSERT, lpm(bytes([10, 0, 0, 5]), 32, 5)))
    assert sorted(e.match[0].lpm.prefix_len for e in read(c, table_id=T_LPM)) == [31, 32]
    assert ports(server, Ether() / IP(dst="10.0.0.5")) == [5]     # the /32 is the longer match
    assert ports(server, Ether() / IP(dst="10.0.0.4")) == [4]
    with pytest.raises(grpc.RpcError) as err:
        c.write(update(U.INSERT, lpm(bytes([10, 0, 0, 6]), 33, 6)))
    assert codes(err.value) == [code_pb2.INVALID_ARGUMENT]
    assert len(read(c, table_id=T_LPM)) == 2


def ternary(value: bytes, priority: int, port: int) -> pb.TableEntry:
    e = pb.TableEntry(table_id=T_TERNARY, priority=priority)
    e.match.add(field_id=1).ternary.CopyFrom(pb.FieldMatch.Ternary(value=value, mask=b"\xff\xff\x00\x00"))
    e.action.action.action_id = SET_PORT
    e.action.action.params.add(param_id=1, value=bytes([port]))
    return e


def test_a_read_with_a_priority_returns_only_that_priority(rt):
    """Three entries of one key at priorities 9, 10 and 11: a Read naming priority 10 gets the
    one at 10; naming none (0) gets all three."""
    _, c = rt
    key = bytes([192, 168, 0, 0])
    c.write(*(update(U.INSERT, ternary(key, prio, prio)) for prio in (9, 10, 11)))
    [one] = read(c, table_id=T_TERNARY, priority=10)
    assert one.priority == 10 and one.action.action.params[0].value == bytes([10])
    assert sorted(e.priority for e in read(c, table_id=T_TERNARY)) == [9, 10, 11]
    assert read(c, table_id=T_TERNARY, priority=12) == []


def ecmp(dst: bytes) -> pb.TableEntry:
    e = pb.TableEntry(table_id=T_ECMP)
    e.match.add(field_id=1).exact.value = dst
    return e


def test_modify_from_a_member_to_a_direct_action_reads_back_the_direct_action(rt):
    """An entry installed with member 1 (set_port(5)) and modified to the direct action
    set_port(9) reads back set_port(9), no member id, and forwards to port 9."""
    server, c = rt
    member = pb.ActionProfileMember(action_profile_id=PROFILE, member_id=1)
    member.action.action_id = SET_PORT
    member.action.params.add(param_id=1, value=b"\x05")
    u = U(type=U.INSERT)
    u.entity.action_profile_member.CopyFrom(member)
    c.write(u)
    by_member = ecmp(bytes([10, 0, 0, 1]))
    by_member.action.action_profile_member_id = 1
    c.write(update(U.INSERT, by_member))
    assert ports(server, Ether() / IP(dst="10.0.0.1")) == [5]
    direct = ecmp(bytes([10, 0, 0, 1]))
    direct.action.action.action_id = SET_PORT
    direct.action.action.params.add(param_id=1, value=b"\x09")
    c.write(update(U.MODIFY, direct))
    [got] = read(c, table_id=T_ECMP)
    assert got.action.WhichOneof("type") == "action"
    assert got.action.action.action_id == SET_PORT and got.action.action.params[0].value == b"\x09"
    assert ports(server, Ether() / IP(dst="10.0.0.1")) == [9]


def test_delete_takes_the_entry_s_direct_meter_config_with_it(rt):
    """An entry written with a direct meter config and deleted leaves no config behind: none in
    the pipeline's state, and the same key inserted again reads back unmetered."""
    server, c = rt
    e = lpm(bytes([10, 0, 0, 0]), 8, 2)
    e.meter_config.CopyFrom(pb.MeterConfig(cir=1000, cburst=100, pir=2000, pburst=200))
    c.write(update(U.INSERT, e))
    [got] = read(c, table_id=T_LPM, meter_config=pb.MeterConfig())
    assert got.meter_config == e.meter_config
    state = server.service.pipelines.current
    assert [tid for tid, _ in state.direct_meter_configs] == [T_LPM]
    c.write(update(U.DELETE, lpm(bytes([10, 0, 0, 0]), 8, 2)))
    assert state.direct_meter_configs == {}
    c.write(update(U.INSERT, lpm(bytes([10, 0, 0, 0]), 8, 2)))
    [again] = read(c, table_id=T_LPM, meter_config=pb.MeterConfig())
    assert not again.HasField("meter_config")
