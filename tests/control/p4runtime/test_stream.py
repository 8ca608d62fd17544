"""The stream: packet-out and packet-in through CPU port 255 with the controller headers,
digests with acknowledgement, and stream errors."""
from __future__ import annotations

import time

import pytest

grpc = pytest.importorskip("grpc")  # no grpcio on PyPy
from google.rpc import code_pb2
from p4.v1 import p4runtime_pb2 as pb
from scapy.layers.l2 import Ether

DIGEST = 385875969


def _packet_out(payload: bytes, port: int) -> pb.StreamMessageRequest:
    req = pb.StreamMessageRequest()
    req.packet.payload = payload
    req.packet.metadata.add(metadata_id=1, value=port.to_bytes(2, "big"))
    return req


def test_packet_out_leaves_on_the_port_its_metadata_names(rt):
    server, c = rt
    out = []
    stop = server.live.listen(lambda p, d: out.append((p, d)))
    frame = bytes(Ether(dst="00:00:00:00:00:09", type=0x9000) / (b"\x01" * 20))
    c.send(_packet_out(frame, 6))
    deadline = time.monotonic() + 3
    while not out and time.monotonic() < deadline:
        time.sleep(0.005)
    stop()
    assert out == [(6, frame)]          # the packet_out header is gone


def test_packet_in_carries_the_ingress_port(rt):
    server, c = rt
    frame = bytes(Ether(dst="00:00:00:00:00:09", type=0x88B5) / (b"\x02" * 20))
    server.live.inject(7, frame)
    msg = c.next("packet")
    assert msg.payload == frame
    assert [(m.metadata_id, m.value) for m in msg.metadata] == [(1, b"\x07"), (2, b"\x00")]


def test_a_backup_gets_no_packet_in_and_cannot_send_packets(rt, connect):
    server, c = rt
    backup = connect(server)
    backup.arbitrate((0, 0))
    backup.send(_packet_out(b"\x00" * 20, 3))
    err = backup.next("error")
    assert err.canonical_code == code_pb2.PERMISSION_DENIED and err.packet_out.packet_out.payload == b"\x00" * 20
    server.live.inject(7, bytes(Ether(type=0x88B5) / (b"\x02" * 20)))
    c.next("packet")
    assert backup.received.empty()


def _configure_digest(c, kind=pb.Update.INSERT, **config):
    u = pb.Update(type=kind)
    u.entity.digest_entry.digest_id = DIGEST
    u.entity.digest_entry.config.CopyFrom(pb.DigestEntry.Config(**config))
    c.write(u)


def test_digests_arrive_in_lists_and_wait_for_their_ack(rt):
    server, c = rt
    learn = bytes(Ether(src="00:00:00:00:00:aa", type=0x1234) / (b"\x00" * 20))
    server.live.inject(2, learn)                  # before the digest is configured: not sent
    _configure_digest(c, max_timeout_ns=0, max_list_size=1, ack_timeout_ns=10**9 * 5)
    server.live.inject(2, learn)
    d = c.next("digest")
    assert d.digest_id == DIGEST and len(d.data) == 1
    fields = [m.bitstring for m in d.data[0].struct.members]
    assert fields == [b"\xaa", b"\x02"]
    server.live.inject(2, learn)                  # the same digest while unacknowledged: suppressed
    other = bytes(Ether(src="00:00:00:00:00:bb", type=0x1234) / (b"\x00" * 20))
    server.live.inject(3, other)
    d2 = c.next("digest")
    assert [m.bitstring for m in d2.data[0].struct.members] == [b"\xbb", b"\x03"]
    ack = pb.StreamMessageRequest()
    ack.digest_ack.digest_id, ack.digest_ack.list_id = DIGEST, d.list_id
    c.send(ack)
    time.sleep(0.05)
    server.live.inject(2, learn)                  # acknowledged: sent again
    assert [m.bitstring for m in c.next("digest").data[0].struct.members] == [b"\xaa", b"\x02"]
    [cfg] = c.read(pb.Entity(digest_entry=pb.DigestEntry(digest_id=DIGEST)))
    assert cfg.digest_entry.config.max_list_size == 1


def test_digest_lists_batch_up_to_their_size(rt):
    server, c = rt
    _configure_digest(c, max_timeout_ns=10**9 * 5, max_list_size=3)
    for i in range(3):
        server.live.inject(1, bytes(Ether(src=f"00:00:00:00:00:0{i}", type=0x1234) / (b"\x00" * 20)))
    d = c.next("digest")
    assert len(d.data) == 3


def test_reads_tell_the_idle_time_and_a_table_without_support_timeout_refuses_one(rt):
    """Notifications themselves: test_idle.py, on a clock the test holds."""
    server, c = rt
    e = pb.TableEntry(table_id=33554433, idle_timeout_ns=50_000_000)
    e.match.add(field_id=1).exact.value = b"\x01"
    e.action.action.action_id = 16777218
    e.action.action.params.add(param_id=1, value=b"\x02")
    c.write(pb.Update(type=pb.Update.INSERT, entity=pb.Entity(table_entry=e)))
    hit = bytes(Ether(dst="00:00:00:00:00:01", type=0x9000) / (b"\x00" * 20))
    server.live.inject(1, hit)
    q = pb.Entity(table_entry=pb.TableEntry(table_id=33554433))
    q.table_entry.time_since_last_hit.SetInParent()
    [got] = c.read(q)
    assert got.table_entry.idle_timeout_ns == 50_000_000
    assert got.table_entry.time_since_last_hit.elapsed_ns < 50_000_000
    e2 = pb.TableEntry(table_id=33554435, idle_timeout_ns=1, priority=1)
    e2.action.action.action_id = 16777217
    with pytest.raises(grpc.RpcError):
        c.write(pb.Update(type=pb.Update.INSERT, entity=pb.Entity(table_entry=e2)))


def test_a_bad_packet_out_is_a_stream_error_and_the_stream_lives_on(rt):
    server, c = rt
    req = _packet_out(b"\x00" * 20, 3)
    req.packet.metadata.add(metadata_id=9, value=b"\x01")       # no such metadata
    c.send(req)
    err = c.next("error")
    assert err.canonical_code == code_pb2.INVALID_ARGUMENT and "metadata id 9" in err.message
    too_wide = _packet_out(b"\x00" * 20, 3)
    too_wide.packet.metadata[0].value = b"\x04\x00"            # 1024 does not fit in 9 bits
    c.send(too_wide)
    assert c.next("error").canonical_code == code_pb2.OUT_OF_RANGE
    server.live.inject(7, bytes(Ether(type=0x88B5) / (b"\x02" * 20)))
    assert c.next("packet").metadata[0].value == b"\x07"
