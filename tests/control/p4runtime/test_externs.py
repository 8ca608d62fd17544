"""Counters, direct counters, meters, direct meters, registers, action profiles, the
packet replication engine and value sets over P4Runtime."""
from __future__ import annotations

import pytest

grpc = pytest.importorskip("grpc")  # no grpcio on PyPy
from google.rpc import code_pb2, status_pb2
from p4.v1 import p4data_pb2
from p4.v1 import p4runtime_pb2 as pb
from scapy.layers.inet import IP
from scapy.layers.l2 import Ether

U = pb.Update
T_LPM, T_ECMP = 33554434, 33554437
SET_PORT, FORWARD = 16777218, 16777220
PORT_COUNTER, LPM_COUNTER, PORT_METER, LPM_METER = 302011393, 318767105, 335544321, 352321537
SEEN, PROFILE, VALUE_SET = 369098753, 285212673, 50331649


def upd(kind, **entity):
    u = U(type=kind)
    (name, msg), = entity.items()
    getattr(u.entity, name).CopyFrom(msg)
    return u


def ent(**entity):
    e = pb.Entity()
    (name, msg), = entity.items()
    getattr(e, name).CopyFrom(msg)
    return e


def send(server, packet, port=1):
    out = []
    stop = server.live.listen(lambda p, d: out.append((p, d)))
    server.live.inject(port, bytes(packet))
    stop()
    return out


def codes(err):
    status = status_pb2.Status.FromString(dict(err.trailing_metadata())["grpc-status-details-bin"])
    out = []
    for d in status.details:
        e = pb.Error()
        d.Unpack(e)
        out.append(e.canonical_code)
    return out


def frame(etype=0x9000, src="00:00:00:00:00:02"):
    return Ether(dst="00:00:00:00:00:01", src=src, type=etype) / (b"\x00" * 50)


def test_counters_read_one_cell_all_cells_and_write(rt):
    server, c = rt
    send(server, frame(), port=3)
    send(server, frame(), port=3)
    [cell] = c.read(ent(counter_entry=pb.CounterEntry(counter_id=PORT_COUNTER, index=pb.Index(index=3))))
    assert cell.counter_entry.data.packet_count == 2 and cell.counter_entry.data.byte_count == 2 * 64
    everything = c.read(ent(counter_entry=pb.CounterEntry()))      # every counter, every cell
    assert len(everything) == 16
    c.write(upd(U.MODIFY, counter_entry=pb.CounterEntry(counter_id=PORT_COUNTER, index=pb.Index(index=3),
                                                         data=pb.CounterData(packet_count=100, byte_count=7))))
    [cell] = c.read(ent(counter_entry=pb.CounterEntry(counter_id=PORT_COUNTER, index=pb.Index(index=3))))
    assert (cell.counter_entry.data.packet_count, cell.counter_entry.data.byte_count) == (100, 7)
    with pytest.raises(grpc.RpcError) as err:
        c.read(ent(counter_entry=pb.CounterEntry(counter_id=PORT_COUNTER, index=pb.Index(index=16))))
    assert err.value.code() == grpc.StatusCode.OUT_OF_RANGE
    with pytest.raises(grpc.RpcError) as err:
        c.write(upd(U.INSERT, counter_entry=pb.CounterEntry(counter_id=PORT_COUNTER)))
    assert codes(err.value) == [code_pb2.INVALID_ARGUMENT]


def _lpm_entry():
    e = pb.TableEntry(table_id=T_LPM)
    e.match.add(field_id=1).lpm.CopyFrom(pb.FieldMatch.LPM(value=bytes([10, 0, 0, 0]), prefix_len=8))
    return e


def test_direct_counters_and_direct_meters_follow_their_entry(rt):
    server, c = rt
    e = _lpm_entry()
    e.action.action.action_id = FORWARD
    e.action.action.params.add(param_id=1, value=b"\x01")
    e.action.action.params.add(param_id=2, value=b"\x02")
    c.write(upd(U.INSERT, table_entry=e))
    send(server, Ether() / IP(dst="10.1.2.3"))
    [d] = c.read(ent(direct_counter_entry=pb.DirectCounterEntry(table_entry=pb.TableEntry(table_id=T_LPM))))
    assert d.direct_counter_entry.data.packet_count == 1
    assert d.direct_counter_entry.table_entry.match[0].lpm.prefix_len == 8
    c.write(upd(U.MODIFY, direct_counter_entry=pb.DirectCounterEntry(table_entry=_lpm_entry(),
                                                                     data=pb.CounterData(packet_count=9))))
    [d] = c.read(ent(direct_counter_entry=pb.DirectCounterEntry(table_entry=_lpm_entry())))
    assert d.direct_counter_entry.data.packet_count == 9
    cfg = pb.MeterConfig(cir=1000, cburst=100, pir=2000, pburst=200)
    c.write(upd(U.MODIFY, direct_meter_entry=pb.DirectMeterEntry(table_entry=_lpm_entry(), config=cfg)))
    [m] = c.read(ent(direct_meter_entry=pb.DirectMeterEntry(table_entry=pb.TableEntry(table_id=T_LPM))))
    assert m.direct_meter_entry.config == cfg
    c.write(upd(U.MODIFY, direct_meter_entry=pb.DirectMeterEntry(table_entry=_lpm_entry())))   # back to unmetered
    [m] = c.read(ent(direct_meter_entry=pb.DirectMeterEntry(table_entry=pb.TableEntry(table_id=T_LPM))))
    assert not m.direct_meter_entry.HasField("config")
    missing = pb.TableEntry(table_id=T_LPM)
    missing.match.add(field_id=1).lpm.CopyFrom(pb.FieldMatch.LPM(value=bytes([11, 0, 0, 0]), prefix_len=8))
    with pytest.raises(grpc.RpcError) as err:
        c.write(upd(U.MODIFY, direct_counter_entry=pb.DirectCounterEntry(table_entry=missing)))
    assert codes(err.value) == [code_pb2.NOT_FOUND]


def test_meters_configure_and_read_back(rt):
    server, c = rt
    cfg = pb.MeterConfig(cir=10, cburst=1, pir=20, pburst=2)
    c.write(upd(U.MODIFY, meter_entry=pb.MeterEntry(meter_id=PORT_METER, index=pb.Index(index=2), config=cfg)))
    cells = c.read(ent(meter_entry=pb.MeterEntry(meter_id=PORT_METER)))
    assert len(cells) == 16 and cells[2].meter_entry.config == cfg and not cells[3].meter_entry.HasField("config")
    bad = pb.MeterConfig(cir=30, cburst=1, pir=20, pburst=2)
    with pytest.raises(grpc.RpcError) as err:
        c.write(upd(U.MODIFY, meter_entry=pb.MeterEntry(meter_id=PORT_METER, index=pb.Index(index=2), config=bad)))
    assert codes(err.value) == [code_pb2.INVALID_ARGUMENT]


def test_registers_read_and_write(rt):
    server, c = rt
    send(server, frame(), port=4)
    [r] = c.read(ent(register_entry=pb.RegisterEntry(register_id=SEEN, index=pb.Index(index=4))))
    assert r.register_entry.data.bitstring == b"\x01"          # the data plane counted one packet
    c.write(upd(U.MODIFY, register_entry=pb.RegisterEntry(register_id=SEEN, index=pb.Index(index=4),
                                                           data=p4data_pb2.P4Data(bitstring=b"\x00\x00\x01\x00"))))
    send(server, frame(), port=4)
    [r] = c.read(ent(register_entry=pb.RegisterEntry(register_id=SEEN, index=pb.Index(index=4))))
    assert r.register_entry.data.bitstring == b"\x01\x01"        # 0x100 + 1, canonical
    # no index: every cell
    c.write(upd(U.MODIFY, register_entry=pb.RegisterEntry(register_id=SEEN, data=p4data_pb2.P4Data(bitstring=b"\x07"))))
    cells = c.read(ent(register_entry=pb.RegisterEntry(register_id=SEEN)))
    assert [x.register_entry.data.bitstring for x in cells] == [b"\x07"] * 16
    with pytest.raises(grpc.RpcError) as err:
        c.write(upd(U.MODIFY, register_entry=pb.RegisterEntry(register_id=SEEN, index=pb.Index(index=0),
                                                               data=p4data_pb2.P4Data(bitstring=b"\x01" * 5))))
    assert codes(err.value) == [code_pb2.OUT_OF_RANGE]


def _member(mid, port):
    m = pb.ActionProfileMember(action_profile_id=PROFILE, member_id=mid)
    m.action.action_id = SET_PORT
    m.action.params.add(param_id=1, value=bytes([port]))
    return m


def _ecmp_entry(dst: bytes, **ref):
    e = pb.TableEntry(table_id=T_ECMP)
    e.match.add(field_id=1).exact.value = dst
    for k, v in ref.items():
        setattr(e.action, k, v)
    return e


def test_action_profile_members_and_groups(rt):
    server, c = rt
    c.write(upd(U.INSERT, action_profile_member=_member(1, 5)),
            upd(U.INSERT, action_profile_member=_member(2, 6)))
    group = pb.ActionProfileGroup(action_profile_id=PROFILE, group_id=10)
    group.members.add(member_id=1, weight=1)
    group.members.add(member_id=2, weight=1)
    c.write(upd(U.INSERT, action_profile_group=group))
    c.write(upd(U.INSERT, table_entry=_ecmp_entry(bytes([10, 0, 0, 1]), action_profile_member_id=1)),
            upd(U.INSERT, table_entry=_ecmp_entry(bytes([10, 0, 0, 2]), action_profile_group_id=10)))
    assert [p for p, _ in send(server, Ether() / IP(dst="10.0.0.1"))] == [5]
    seen = {p for i in range(40) for p, _ in send(server, Ether() / IP(dst="10.0.0.2", src=f"1.2.3.{i}"))}
    assert seen == {5, 6}                                      # the selector spreads over both members
    # a member changed: the entry using it follows
    c.write(upd(U.MODIFY, action_profile_member=_member(1, 7)))
    assert [p for p, _ in send(server, Ether() / IP(dst="10.0.0.1"))] == [7]
    # a member only the group uses changed: the group's members change in place, and the table
    # notes it as an edit (what the batch engine's snapshots and decision caches follow)
    table = next(t for t in server.live.switch.dp.tables.values() if t.qualified_name.endswith("t_ecmp"))
    version = table.match.version
    c.write(upd(U.MODIFY, action_profile_member=_member(2, 8)))
    assert table.match.version > version
    seen = {p for i in range(40) for p, _ in send(server, Ether() / IP(dst="10.0.0.2", src=f"1.2.3.{i}"))}
    assert seen == {7, 8}
    entries = {e.table_entry.match[0].exact.value: e.table_entry.action
               for e in c.read(ent(table_entry=pb.TableEntry(table_id=T_ECMP)))}
    assert entries[bytes([10, 0, 0, 1])].action_profile_member_id == 1
    assert entries[bytes([10, 0, 0, 2])].action_profile_group_id == 10
    assert len(c.read(ent(action_profile_member=pb.ActionProfileMember()))) == 2
    [g] = c.read(ent(action_profile_group=pb.ActionProfileGroup(action_profile_id=PROFILE)))
    assert [m.member_id for m in g.action_profile_group.members] == [1, 2]
    with pytest.raises(grpc.RpcError) as err:   # still used by an entry and a group
        c.write(upd(U.DELETE, action_profile_member=_member(1, 7)))
    assert codes(err.value) == [code_pb2.FAILED_PRECONDITION]


def test_multicast_groups_and_clone_sessions(rt):
    server, c = rt
    g = pb.MulticastGroupEntry(multicast_group_id=7)
    g.replicas.add(egress_port=1, instance=0)
    g.replicas.add(egress_port=2, instance=0)
    c.write(upd(U.INSERT, packet_replication_engine_entry=pb.PacketReplicationEngineEntry(multicast_group_entry=g)))
    assert server.live.switch.dp.multicast_groups[7] == [(0, [1, 2])]
    [got] = c.read(ent(packet_replication_engine_entry=pb.PacketReplicationEngineEntry(
        multicast_group_entry=pb.MulticastGroupEntry(multicast_group_id=7))))
    assert [(r.egress_port, r.instance) for r in got.packet_replication_engine_entry.multicast_group_entry.replicas] \
        == [(1, 0), (2, 0)]
    with pytest.raises(grpc.RpcError) as err:
        c.write(upd(U.INSERT, packet_replication_engine_entry=pb.PacketReplicationEngineEntry(multicast_group_entry=g)))
    assert codes(err.value) == [code_pb2.ALREADY_EXISTS]
    s = pb.CloneSessionEntry(session_id=5, packet_length_bytes=100)
    s.replicas.add(egress_port=4, instance=0)
    c.write(upd(U.INSERT, packet_replication_engine_entry=pb.PacketReplicationEngineEntry(clone_session_entry=s)))
    assert server.live.switch.dp.clone_sessions[5]["port"] == 4
    s.replicas.add(egress_port=6, instance=1)
    c.write(upd(U.MODIFY, packet_replication_engine_entry=pb.PacketReplicationEngineEntry(clone_session_entry=s)))
    [got] = c.read(ent(packet_replication_engine_entry=pb.PacketReplicationEngineEntry(
        clone_session_entry=pb.CloneSessionEntry())))
    assert got.packet_replication_engine_entry.clone_session_entry == s
    c.write(upd(U.DELETE, packet_replication_engine_entry=pb.PacketReplicationEngineEntry(
        multicast_group_entry=pb.MulticastGroupEntry(multicast_group_id=7))))
    assert 7 not in server.live.switch.dp.multicast_groups


def test_value_sets_are_replaced_whole(rt):
    server, c = rt
    vs = pb.ValueSetEntry(value_set_id=VALUE_SET)
    vs.members.add().match.add(field_id=1).exact.value = b"\x88\x88"
    c.write(upd(U.MODIFY, value_set_entry=vs))
    assert [p for p, _ in send(server, frame(0x8888))] == [3]
    [got] = c.read(ent(value_set_entry=pb.ValueSetEntry(value_set_id=VALUE_SET)))
    assert got.value_set_entry.members[0].match[0].exact.value == b"\x88\x88"
    c.write(upd(U.MODIFY, value_set_entry=pb.ValueSetEntry(value_set_id=VALUE_SET)))
    assert [p for p, _ in send(server, frame(0x8888))] == [0]


def test_one_shot_action_sets(rt):
    server, c = rt
    e = _ecmp_entry(bytes([10, 0, 0, 3]))
    for port in (5, 6):
        a = e.action.action_profile_action_set.action_profile_actions.add(weight=1)
        a.action.action_id = SET_PORT
        a.action.params.add(param_id=1, value=bytes([port]))
    c.write(upd(U.INSERT, table_entry=e))
    seen = {p for i in range(40) for p, _ in send(server, Ether() / IP(dst="10.0.0.3", src=f"1.2.3.{i}"))}
    assert seen == {5, 6}
    [got] = c.read(ent(table_entry=pb.TableEntry(table_id=T_ECMP)))
    assert got.table_entry.action.action_profile_action_set == e.action.action_profile_action_set
    one = _ecmp_entry(bytes([10, 0, 0, 3]))
    a = one.action.action_profile_action_set.action_profile_actions.add(weight=1)
    a.action.action_id = SET_PORT
    a.action.params.add(param_id=1, value=b"\x09")
    c.write(upd(U.MODIFY, table_entry=one))
    assert [p for p, _ in send(server, Ether() / IP(dst="10.0.0.3"))] == [9]
