"""PTF's nn platform served by a LiveSwitch, driven by PTF's own socket class and by raw frames."""
from __future__ import annotations

import struct
import threading
import time

import pytest

pynng = pytest.importorskip("pynng")
ptf_dataplane = pytest.importorskip("ptf.dataplane")

from scapy.layers.inet import IP, TCP  # noqa: E402
from scapy.layers.l2 import Ether  # noqa: E402

from dataplane.control.live import LiveSwitch  # noqa: E402
from dataplane.control.ptf_socket import PACKET_IN, PACKET_OUT, PtfSocket  # noqa: E402
from dataplane.control.switch import Switch  # noqa: E402
from dataplane.resources import builtin_program  # noqa: E402


def _router() -> Switch:
    sw = Switch.from_file(builtin_program("ipv4_router"))
    sw.table_add("ipv4_lpm", "ipv4_forward", ["10.0.2.0/24"], ["00:00:00:00:02:02", 2])
    sw.table_add("ipv4_lpm", "ipv4_forward", ["10.0.9.0/24"], ["00:00:00:00:09:09", 9])
    return sw


def _packet(dst: str = "10.0.2.2") -> bytes:
    return bytes(Ether(dst="00:00:00:00:01:01") / IP(src="10.0.1.1", dst=dst, ttl=64) / TCP())


@pytest.fixture
def served(tmp_path):
    live = LiveSwitch(_router(), cpu_port=9)
    sock = PtfSocket(live, f"ipc://{tmp_path}/ptf.ipc").start()
    try:
        yield live, sock
    finally:
        sock.close()


def _ptf_client(sock: PtfSocket, ports=(1, 2)):
    """PTF's own nn packet source, as ``ptf --platform nn`` builds it."""
    client = ptf_dataplane.DataPlanePacketSourceNN(0, sock.address, 2000, 1000)
    for p in ports:
        client.port_add(p)
    return client


def _wait(cond, timeout=5.0):
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            return False
        time.sleep(0.01)
    return True


def _recv_packet(client):
    """The next packet PTF's source yields (it returns None for replies and unknown ports)."""
    end = time.monotonic() + 5
    while time.monotonic() < end:
        got = client.recv()
        if got is not None:
            return got
    raise AssertionError("no packet from the switch")


def test_a_packet_from_ptf_is_routed_and_comes_back_on_its_egress_port(served):
    live, sock = served
    client = _ptf_client(sock)
    assert _wait(lambda: set(sock.ports) == {1, 2})
    client.send(1, _packet())
    device, port, data, _ = _recv_packet(client)
    assert (device, port) == (0, 2)
    assert IP(data[14:]).ttl == 63 and Ether(data).dst == "00:00:00:00:02:02"
    # replies are read by PTF's dataplane thread; here a helper thread plays that part
    pump = threading.Thread(target=lambda: [client.recv() for _ in range(3)], daemon=True)
    pump.start()
    assert client.get_nn_counters(1) == (1, 0) and client.get_nn_counters(2) == (0, 1)
    assert client.get_mac(1, timeout=2) is None    # no MAC addresses here: not supported
    pump.join(timeout=5)
    client.close()


def test_a_port_that_is_down_drops_in_both_directions(served):
    live, sock = served
    client = _ptf_client(sock)
    client.port_bring_down(2)
    assert _wait(lambda: 2 in sock.ports and not sock.ports[2].up)
    client.send(1, _packet())          # routed to port 2, which is down
    assert _wait(lambda: sock.stats.dropped == 1)
    client.port_bring_down(1)
    assert _wait(lambda: not sock.ports[1].up)
    client.send(1, _packet())          # arrives on a port that is down
    assert _wait(lambda: sock.stats.dropped == 2)
    client.port_bring_up(2)
    client.port_bring_up(1)
    assert _wait(lambda: sock.ports[1].up and sock.ports[2].up)
    client.send(1, _packet())
    assert _recv_packet(client)[1] == 2
    client.close()


def test_cpu_port_output_stays_with_the_controller(served):
    live, sock = served
    seen = []
    live.listen(lambda port, data: seen.append(port))
    client = _ptf_client(sock, ports=(1, 2, 9))
    assert _wait(lambda: 9 in sock.ports)
    client.send(1, _packet("10.0.9.1"))
    assert _wait(lambda: seen == [9])
    assert sock.stats.sent == 0
    client.close()


def test_bad_messages_are_counted_and_the_socket_keeps_serving(served):
    live, sock = served
    raw = pynng.Pair0(recv_timeout=3000)
    raw.dial(sock.address)
    raw.send(b"\x01\x02")                                        # shorter than the header
    raw.send(struct.pack("<iii", 42, 1, 0))                      # unknown type
    raw.send(struct.pack("<iii", 2, 1, 7))                       # status neither up nor down
    raw.send(struct.pack("<iii", PACKET_IN, 1, 500) + b"abc")    # length disagrees
    raw.send(struct.pack("<iii", 0, 1, 0))                       # PORT_ADD 1
    raw.send(struct.pack("<iii", 0, 2, 0))
    raw.send(struct.pack("<iii", PACKET_IN, 1, 4) + b"\x00" * 4)  # too short to parse: dropped
    pkt = _packet()
    raw.send(struct.pack("<iii", PACKET_IN, 1, len(pkt)) + pkt)
    reply = raw.recv()
    kind, port, length = struct.unpack_from("<iii", reply)
    assert (kind, port, length) == (PACKET_OUT, 2, len(reply) - 12)
    assert sock.stats.bad_messages == 4 and sock.stats.errors == []
    raw.close()


def test_a_second_ptf_run_after_the_first_disconnects_starts_clean(served):
    live, sock = served
    first = _ptf_client(sock)
    first.port_bring_down(2)
    assert _wait(lambda: 2 in sock.ports and not sock.ports[2].up)
    first.close()
    assert _wait(lambda: sock.ports == {})
    second = _ptf_client(sock)
    assert _wait(lambda: set(sock.ports) == {1, 2})
    second.send(1, _packet())
    assert _recv_packet(second)[1] == 2
    assert sock.stats.connections == 2
    second.close()


def test_an_address_that_cannot_be_listened_on_is_a_clear_error():
    live = LiveSwitch(_router())
    with pytest.raises(ValueError, match="cannot listen for PTF at tcp://"):
        PtfSocket(live, "tcp://256.1.1.1:1").start()


def test_tcp_addresses_work_as_ipc_ones():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with PtfSocket(LiveSwitch(_router()), f"tcp://127.0.0.1:{port}") as sock:
        client = _ptf_client(sock)
        assert _wait(lambda: set(sock.ports) == {1, 2})
        client.send(1, _packet())
        assert _recv_packet(client)[1] == 2
        client.close()
