"""An unmodified p4runtime-shell session against the server, in-process, on loopback.

The P4Info and the device config are what ``dataplane compile rt.p4 --p4info ...
--device-config ...`` writes; the session sets the pipeline, writes entries of every match
kind, reads counters, writes and reads a register, creates a multicast group, sends a
packet-out and sniffs a packet-in; a second client with a lower election id is refused.
"""
from __future__ import annotations

import time
from pathlib import Path

import pytest

grpc = pytest.importorskip("grpc")  # no grpcio on PyPy

sh = pytest.importorskip("p4runtime_sh.shell")
from p4.v1 import p4runtime_pb2  # noqa: E402
from p4runtime_sh.p4runtime import P4RuntimeClient, P4RuntimeException  # noqa: E402
from scapy.layers.inet import IP  # noqa: E402
from scapy.layers.l2 import Ether  # noqa: E402

from dataplane.control.device_config import make_device_config  # noqa: E402
from dataplane.control.p4info import build_p4info, write_p4info  # noqa: E402
from dataplane.lang.frontend import compile_file  # noqa: E402

pytestmark = pytest.mark.no_pypy  # interpreter-independent and slow under PyPy

RT = Path(__file__).parent / "rt.p4"


@pytest.fixture
def session(start_server, tmp_path):
    server = start_server()
    p4info, devcfg = tmp_path / "rt.p4info.txtpb", tmp_path / "rt.bin"
    write_p4info(build_p4info(compile_file(RT).program), p4info)
    devcfg.write_bytes(make_device_config(RT))
    addr = f"127.0.0.1:{server.port}"
    sh.setup(device_id=1, grpc_addr=addr, election_id=(0, 1), config=sh.FwdPipeConfig(str(p4info), str(devcfg)),
             verbose=False)
    yield server, addr, (str(p4info), str(devcfg))
    sh.teardown()


def _ports(server, packet, port=1):
    out = []
    stop = server.live.listen(lambda p, d: out.append(p))
    server.live.inject(port, bytes(packet))
    stop()
    return out


def _ip(**kw):
    return Ether(dst="00:00:00:00:00:0a", type=0x0800) / IP(**kw)


def test_entries_of_every_match_kind(session):
    server, _, _ = session
    te = sh.TableEntry("MyIngress.t_exact")(action="MyIngress.set_port")
    te.match["hdr.ethernet.dstAddr"] = "00:00:00:00:00:01"
    te.action["port"] = "5"
    te.insert()
    frame = Ether(dst="00:00:00:00:00:01", type=0x9000) / (b"\x00" * 20)
    assert _ports(server, frame) == [5]
    [got] = sh.TableEntry("MyIngress.t_exact").read()
    assert got.action["port"].value == b"\x05"
    te.action["port"] = "6"
    te.modify()
    assert _ports(server, frame) == [6]
    te.delete()
    assert list(sh.TableEntry("MyIngress.t_exact").read()) == []

    lpm = sh.TableEntry("MyIngress.t_lpm")(action="MyIngress.forward")
    lpm.match["hdr.ipv4.dstAddr"] = "10.0.0.0/8"
    lpm.action["dmac"] = "00:00:00:00:00:02"
    lpm.action["port"] = "2"
    lpm.insert()
    tern = sh.TableEntry("MyIngress.t_ternary")(action="MyIngress.set_port")
    tern.match["hdr.ipv4.srcAddr"] = "192.168.0.0&&&255.255.0.0"
    tern.action["port"] = "3"
    tern.priority = 10
    tern.insert()
    rng = sh.TableEntry("MyIngress.t_range")(action="MyIngress.set_port")
    rng.match["hdr.ipv4.ttl"] = "16..32"
    rng.match["hdr.ipv4.protocol"] = "17"
    rng.action["port"] = "4"
    rng.priority = 5
    rng.insert()
    assert _ports(server, _ip(dst="10.1.1.1", src="1.1.1.1", ttl=64)) == [2]
    assert _ports(server, _ip(dst="10.1.1.1", src="192.168.3.3", ttl=64)) == [3]
    assert _ports(server, _ip(dst="10.1.1.1", src="192.168.3.3", ttl=20, proto=17)) == [4]
    [r] = sh.TableEntry("MyIngress.t_range").read()
    assert r.priority == 5 and r.match["hdr.ipv4.ttl"].range.high == b"\x20"
    for entry in (lpm, tern, rng):
        entry.delete()
    assert sum(1 for _ in sh.TableEntry("MyIngress.t_ternary").read()) == 0


def test_counters_and_a_register(session):
    server, _, _ = session
    for _ in range(3):
        _ports(server, Ether(type=0x9000) / (b"\x00" * 50), port=3)
    ce = sh.CounterEntry("MyIngress.port_counter")
    ce.index = 3
    [cell] = ce.read()
    assert cell.data.packet_count == 3 and cell.data.byte_count == 3 * 64
    # p4runtime-shell has no register object; its client writes and reads any entity
    info = sh.client.get_p4info()
    rid = next(r.preamble.id for r in info.registers if r.preamble.name == "MyIngress.seen")
    update = p4runtime_pb2.Update(type=p4runtime_pb2.Update.MODIFY)
    update.entity.register_entry.register_id = rid
    update.entity.register_entry.index.index = 9
    update.entity.register_entry.data.bitstring = b"\x12\x34"
    sh.client.write_update(update)
    query = p4runtime_pb2.Entity()
    query.register_entry.register_id, query.register_entry.index.index = rid, 9
    [reply] = list(sh.client.read_one(query))
    assert reply.entities[0].register_entry.data.bitstring == b"\x12\x34"


def test_multicast_group(session):
    server, _, _ = session
    sh.MulticastGroupEntry(7).add(1, 1).add(2, 1).insert()
    assert server.live.switch.dp.multicast_groups[7] == [(1, [1, 2])]
    [g] = sh.MulticastGroupEntry(7).read()
    assert sorted(r.egress_port for r in g.replicas) == [1, 2]


def test_packet_out_and_packet_in(session):
    server, _, _ = session
    out = []
    stop = server.live.listen(lambda p, d: out.append((p, d)))
    frame = bytes(Ether(dst="00:00:00:00:00:09", type=0x9000) / (b"\x01" * 20))
    sh.PacketOut(payload=frame, egress_port="6").send()
    deadline = time.monotonic() + 3
    while not out and time.monotonic() < deadline:
        time.sleep(0.005)
    stop()
    assert out == [(6, frame)]
    sniffer = sh.PacketIn()
    to_cpu = bytes(Ether(dst="00:00:00:00:00:09", type=0x88B5) / (b"\x02" * 20))
    server.live.inject(4, to_cpu)
    [msg] = list(sniffer.sniff(timeout=0.5))
    assert msg.packet.payload == to_cpu
    assert {m.metadata_id: m.value for m in msg.packet.metadata}[1] == b"\x04"


def test_a_backup_client_is_refused(session):
    _, addr, _ = session
    backup = P4RuntimeClient(1, addr, (0, 0))
    try:
        te = sh.TableEntry("MyIngress.t_exact")(action="MyIngress.drop")
        te.match["hdr.ethernet.dstAddr"] = "00:00:00:00:00:01"
        update = p4runtime_pb2.Update(type=p4runtime_pb2.Update.INSERT)
        update.entity.table_entry.CopyFrom(te.msg())
        # the shell's write wrapper re-raises errors other than a batch's UNKNOWN as they come
        with pytest.raises(grpc.RpcError) as err:
            backup.write_update(update)
        assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
        with pytest.raises(P4RuntimeException) as err:      # the same for setting the pipeline
            backup.set_fwd_pipe_config(*session[2])
        assert err.value.grpc_error.code() == grpc.StatusCode.PERMISSION_DENIED
    finally:
        backup.tear_down()


def test_defaults_profiles_clone_sessions_and_digests(session):
    server, _, _ = session
    d = sh.TableEntry("MyIngress.t_ternary")(action="MyIngress.set_port", is_default=True)
    d.action["port"] = "12"
    d.modify()
    [got] = sh.TableEntry("MyIngress.t_ternary")(is_default=True).read()
    assert got.action["port"].value == b"\x0c"

    for mid, port in ((1, "5"), (2, "6")):
        m = sh.ActionProfileMember("MyIngress.ecmp_selector")(action="MyIngress.set_port", member_id=mid)
        m.action["port"] = port
        m.insert()
    sh.ActionProfileGroup("MyIngress.ecmp_selector")(group_id=1).add(1).add(2).insert()
    te = sh.TableEntry("MyIngress.t_ecmp")
    te.match["hdr.ipv4.dstAddr"] = "10.0.0.2"
    te.group_id = 1
    te.insert()
    seen = {p for i in range(30) for p in _ports(server, _ip(dst="10.0.0.2", src=f"1.2.3.{i}"))}
    assert seen == {5, 6}
    assert [g.group_id for g in sh.ActionProfileGroup("MyIngress.ecmp_selector").read()] == [1]

    sh.CloneSessionEntry(5).add(3, 0).insert()
    [cs] = sh.CloneSessionEntry(5).read()
    assert [(r.egress_port, r.instance) for r in cs.replicas] == [(3, 0)]

    digests = sh.DigestList()
    entry = sh.DigestEntry("learn_t")
    entry.max_list_size = 1
    entry.insert()
    server.live.inject(2, bytes(Ether(src="00:00:00:00:00:aa", type=0x1234) / (b"\x00" * 20)))
    [msg] = list(digests.sniff(timeout=0.5))
    assert [m.bitstring for m in msg.digest.data[0].struct.members] == [b"\xaa", b"\x02"]
