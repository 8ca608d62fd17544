"""The ``p4runtime-sh`` command, unmodified, typed into against ``dataplane serve`` as a user would.

Two processes on loopback: ``dataplane serve --cpu-port 255 --ptf-socket ipc://...`` (no
program: the shell's ``--config`` pushes it) and ``python -m p4runtime_sh ... --config
P4INFO,DEVICE_CONFIG`` with its commands written to its standard input one by one. The test
plays the wire through the PTF socket (an NNG Pair0, as PTF dials it), so packets the shell's
entries steer, its packet-out and the packet-in it sniffs are all seen from outside. A second
shell with a lower election id is a backup whose write is refused with PERMISSION_DENIED.
"""
from __future__ import annotations

import queue
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("grpc")  # no grpcio on PyPy
pytest.importorskip("p4runtime_sh.shell")
pynng = pytest.importorskip("pynng")
from scapy.layers.l2 import Ether  # noqa: E402

from dataplane.testing.processes import dataplane_command as _dataplane  # noqa: E402,E501
from dataplane.testing.processes import free_port, stop_process, wait_listening

pytestmark = pytest.mark.no_pypy  # interpreter-independent and slow under PyPy

RT = Path(__file__).parent / "rt.p4"
PACKET_IN, PACKET_OUT, PORT_ADD = 3, 4, 0   # PTF's nn message types (PTF's view: in = to the switch)


class Shell:
    """A p4runtime-sh process: ``type(line)`` writes a command, ``expect(tag)`` waits for its output."""

    def __init__(self, args: list[str]):
        self.proc = subprocess.Popen([sys.executable, "-m", "p4runtime_sh", *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
        self.lines: queue.Queue = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def type(self, line: str) -> None:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def expect(self, tag: str, timeout: float = 20) -> str:
        """The text after ``tag`` on the first output line that has it."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                line = self.lines.get(timeout=max(0.0, end - time.monotonic()))
            except queue.Empty:
                break
            if line is None:
                break
            self.seen.append(line)
            if tag in line:
                return line.split(tag, 1)[1].strip()
        pytest.fail(f"p4runtime-sh never printed {tag!r}; its output:\n{''.join(self.seen)}")

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def served(tmp_path):
    """(grpc address, PTF-side Pair0 socket, P4Info path, device config path); all stopped at the end."""
    p4info, devcfg = tmp_path / "rt.p4info.txtpb", tmp_path / "rt.bin"
    subprocess.run(_dataplane("compile", str(RT), "--p4info", str(p4info), "--device-config", str(devcfg)),
                   check=True, capture_output=True)
    port, ipc = free_port(), f"ipc://{tmp_path}/ptf.ipc"
    log = tmp_path / "serve.log"
    with log.open("w") as out:
        server = subprocess.Popen(_dataplane("serve", "--grpc-addr", f"127.0.0.1:{port}", "--device-id", "1",
                                             "--cpu-port", "255", "--ptf-socket", ipc), stdout=out, stderr=out)
    wire = None
    try:
        wait_listening(server, port, log)
        wire = pynng.Pair0(recv_timeout=5000, send_timeout=2000)
        wire.dial(ipc)
        for p in (1, 2, 3, 4, 6):
            wire.send(struct.pack("<iii", PORT_ADD, p, 0))
        yield f"127.0.0.1:{port}", wire, p4info, devcfg
    finally:
        if wire is not None:
            wire.close()
        stop_process(server)


def _send(wire, port: int, frame: bytes) -> None:
    wire.send(struct.pack("<iii", PACKET_IN, port, len(frame)) + frame)


def _receive(wire) -> tuple[int, bytes]:
    msg = wire.recv()
    kind, port, length = struct.unpack_from("<iii", msg)
    assert kind == PACKET_OUT and len(msg) == 12 + length
    return port, msg[12:]


def test_a_p4runtime_sh_session_drives_dataplane_serve(served, tmp_path):
    addr, wire, p4info, devcfg = served
    shell = Shell(["--grpc-addr", addr, "--device-id", "1", "--election-id", "0,1",
                   "--config", f"{p4info},{devcfg}"])
    try:
        frame = bytes(Ether(dst="00:00:00:00:00:01", type=0x9000) / (b"\x00" * 50))
        # an exact entry: insert, read, steer a packet, modify, delete
        shell.type('te = table_entry["MyIngress.t_exact"](action="MyIngress.set_port")')
        shell.type('te.match["hdr.ethernet.dstAddr"] = "00:00:00:00:00:01"')
        shell.type('te.action["port"] = "2"')
        shell.type('te.insert()')
        shell.type('print("READ1", [e.action["port"].value.hex() for e in table_entry["MyIngress.t_exact"].read()])')
        assert shell.expect("READ1") == "['02']"
        _send(wire, 3, frame)
        assert _receive(wire) == (2, frame)
        shell.type('te.action["port"] = "6"')
        shell.type('te.modify()')
        shell.type('print("READ2", [e.action["port"].value.hex() for e in table_entry["MyIngress.t_exact"].read()])')
        assert shell.expect("READ2") == "['06']"
        _send(wire, 3, frame)
        assert _receive(wire) == (6, frame)

        # the two packets from port 3 were counted
        shell.type('c = counter_entry["MyIngress.port_counter"]; c.index = 3')
        shell.type('print("COUNT", [(e.data.packet_count, e.data.byte_count) for e in c.read()])')
        assert shell.expect("COUNT") == f"[(2, {2 * len(frame)})]"
        shell.type('te.delete()')
        shell.type('print("READ3", len(list(table_entry["MyIngress.t_exact"].read())))')
        assert shell.expect("READ3") == "0"

        # a register: the shell's Write takes a WriteRequest file; its client reads any entity
        rid = _register_id(p4info, "MyIngress.seen")
        request = tmp_path / "reg.txt"
        request.write_text(f'updates {{ type: MODIFY entity {{ register_entry {{ register_id: {rid} '
                           f'index {{ index: 9 }} data {{ bitstring: "\\x12\\x34" }} }} }} }}\n')
        shell.type(f'Write("{request}")')
        shell.type('from p4.v1 import p4runtime_pb2; from p4runtime_sh.shell import client')
        shell.type(f'q = p4runtime_pb2.Entity(); q.register_entry.register_id = {rid}; '
                   'q.register_entry.index.index = 9')
        shell.type('print("REG", [e.register_entry.data.bitstring.hex() for r in client.read_one(q) '
                   'for e in r.entities])')
        assert shell.expect("REG") == "['1234']"

        # a multicast group, used by nothing in rt.p4 but read back as written
        shell.type('multicast_group_entry(5).add(1, 1).add(2, 1).insert()')
        shell.type('print("MC", sorted(r.egress_port for g in multicast_group_entry(5).read() '
                   'for r in g.replicas))')
        assert shell.expect("MC") == "[1, 2]"

        # packet-out to port 4 leaves there; a 0x88b5 frame from port 4 comes back as a packet-in
        out_frame = bytes(Ether(dst="00:00:00:00:00:09", type=0x9000) / (b"\x01" * 30))
        shell.type(f'packet_out(payload=bytes.fromhex("{out_frame.hex()}"), egress_port="4").send()')
        assert _receive(wire) == (4, out_frame)
        to_cpu = bytes(Ether(dst="00:00:00:00:00:09", type=0x88B5) / (b"\x02" * 30))
        shell.type('import threading, time; got = []; '
                   't = threading.Thread(target=lambda: got.extend(packet_in.sniff(timeout=3))); t.start()')
        time.sleep(0.5)    # the sniffer is listening before the packet arrives
        _send(wire, 4, to_cpu)
        shell.type('t.join(); print("PKTIN", [(m.packet.payload.hex(), [(md.metadata_id, md.value.hex()) '
                   'for md in m.packet.metadata]) for m in got])')
        assert shell.expect("PKTIN") == repr([(to_cpu.hex(), [(1, "04"), (2, "00")])])   # ingress_port, _pad

        # a second session with a lower election id is a backup: it reads, its writes are refused
        backup = Shell(["--grpc-addr", addr, "--device-id", "1", "--election-id", "0,0"])
        try:
            backup.type('te = table_entry["MyIngress.t_exact"](action="MyIngress.drop")')
            backup.type('te.match["hdr.ethernet.dstAddr"] = "00:00:00:00:00:07"')
            backup.type('te.insert()')
            backup.expect("PERMISSION_DENIED")
            backup.type('print("BACKUP-READ", len(list(table_entry["MyIngress.t_exact"].read())))')
            assert backup.expect("BACKUP-READ") == "0"
        finally:
            backup.close()
    finally:
        shell.close()


def _register_id(p4info: Path, name: str) -> int:
    from google.protobuf import text_format
    from p4.config.v1 import p4info_pb2

    info = text_format.Parse(p4info.read_text(), p4info_pb2.P4Info())
    return next(r.preamble.id for r in info.registers if r.preamble.name == name)
