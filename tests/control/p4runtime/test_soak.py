"""A soak of ``dataplane serve`` with real gRPC clients on loopback, bounded in count and time:
64 idle streams, a primary writing 500 entries (then 500 more under load), and hostile clients sending malformed and
oversized messages, random requests and configs (a macro bomb, an include of /etc/hostname,
one over the size limit). The primary's writes take at most 20 times as long as the same
number on the quiet server (measured first, in the same run), the server never dies, its memory stays bounded, and SIGTERM ends it within 2 s while a bomb compiles."""
from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

grpc = pytest.importorskip("grpc")  # no grpcio on PyPy
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc  # noqa: E402

from .conftest import Client, load_p4info, rt_device_config  # noqa: E402
from .test_hostile_configs import compile_children, config, macro_bomb  # noqa: E402
from .test_stream_limits import IdleStream, arbitration, exact_entry  # noqa: E402

pytestmark = pytest.mark.realtime     # its time bounds want a machine not busy with the rest of the suite

METHODS = ("Write", "Read", "SetForwardingPipelineConfig", "GetForwardingPipelineConfig", "Capabilities")
PACE = 0.002     # between one hostile call and the next: a busy client, not one that owns the CPU
HOSTNAME = Path("/etc/hostname").read_text().strip() if Path("/etc/hostname").exists() else ""


def rss_kb(pid: int) -> int:
    """The process's resident size; 0 once it has exited (a zombie's status has no VmRSS)."""
    try:
        found = re.search(r"VmRSS:\s+(\d+)", Path(f"/proc/{pid}/status").read_text())
    except (FileNotFoundError, ProcessLookupError):
        return 0     # gone, or going between the open and the read (ESRCH: the watcher's race)
    return int(found.group(1)) if found else 0


class Fuzzer(threading.Thread):
    """Sends hostile unary calls until ``stop`` is set; counts what it sent and what came back."""

    def __init__(self, port: int, seed: int, stop: threading.Event):
        super().__init__(daemon=True)
        self.port, self.rng, self.stop = port, random.Random(seed), stop
        self.sent = 0
        self.codes: dict[str, int] = {}

    def run(self) -> None:
        channel = grpc.insecure_channel(f"127.0.0.1:{self.port}",
                                        options=[("grpc.max_send_message_length", 80 << 20)])
        stub = p4runtime_pb2_grpc.P4RuntimeStub(channel)
        raw = {m: channel.unary_unary(f"/p4.v1.P4Runtime/{m}") for m in METHODS}   # bytes in, bytes out
        oversized = 0
        try:
            while not self.stop.is_set():
                kind = self.rng.random()
                try:
                    if kind < 0.4:       # bytes that are no protobuf message at all
                        data = self.rng.randbytes(self.rng.randrange(1, 4096))
                        raw[self.rng.choice(METHODS)](data, timeout=5)
                    elif kind < 0.8:     # well-formed requests full of nonsense
                        stub.Write(self._write(), timeout=5)
                    elif kind < 0.98:
                        list(stub.Read(self._read(), timeout=5))
                    elif oversized < 3:  # past the 64 MiB message limit
                        oversized += 1
                        raw["Write"](bytes(65 << 20), timeout=10)
                    self._count("OK")
                except grpc.RpcError as err:
                    self._count(err.code().name)
                self.sent += 1
                self.stop.wait(PACE)
        finally:
            channel.close()

    def _count(self, code: str) -> None:
        self.codes[code] = self.codes.get(code, 0) + 1

    def _write(self) -> p4runtime_pb2.WriteRequest:
        r = self.rng
        req = p4runtime_pb2.WriteRequest(device_id=r.choice([1, 0, 2 ** 64 - 1]), atomicity=r.randrange(4))
        req.election_id.low = r.choice([0, 1, 100, 2 ** 64 - 1])
        for _ in range(r.randrange(0, 20)):
            u = req.updates.add(type=r.randrange(5))
            e = u.entity.table_entry
            e.table_id = r.choice([0, 33554433, 33554434, r.randrange(2 ** 32)])
            m = e.match.add(field_id=r.randrange(4))
            m.exact.value = r.randbytes(r.randrange(0, 40))
            e.action.action.action_id = r.choice([16777218, r.randrange(2 ** 32)])
            e.action.action.params.add(param_id=r.randrange(3), value=r.randbytes(r.randrange(0, 9)))
            e.priority = r.randrange(-5, 5) % 2 ** 31
        return req

    def _read(self) -> p4runtime_pb2.ReadRequest:
        r = self.rng
        req = p4runtime_pb2.ReadRequest(device_id=r.choice([1, 7]))
        for _ in range(r.randrange(1, 5)):
            e = req.entities.add()
            which = r.randrange(4)
            if which == 0:
                e.table_entry.table_id = r.choice([0, 33554433, r.randrange(2 ** 32)])
            elif which == 1:
                e.register_entry.register_id = r.choice([0, 369098753, r.randrange(2 ** 32)])
                e.register_entry.index.index = r.randrange(-1, 2 ** 20) % 2 ** 63
            elif which == 2:
                e.counter_entry.counter_id = r.randrange(2 ** 32)
            else:
                e.packet_replication_engine_entry.multicast_group_entry.multicast_group_id = r.randrange(2 ** 32)
        return req


class StreamFuzzer(threading.Thread):
    """Opens streams and sends them nonsense: arbitration for other devices, packet-outs before
    arbitrating or as a backup, the primary's election id; each stream ends after a few
    messages. (It never claims an election id above the primary's: without TLS any client may,
    which is the threat model, not a bug.)"""

    def __init__(self, port: int, seed: int, stop: threading.Event):
        super().__init__(daemon=True)
        self.port, self.rng, self.stop = port, random.Random(seed), stop
        self.streams = 0

    def run(self) -> None:
        channel = grpc.insecure_channel(f"127.0.0.1:{self.port}")
        stub = p4runtime_pb2_grpc.P4RuntimeStub(channel)
        try:
            while not self.stop.is_set():
                msgs = []
                for _ in range(self.rng.randrange(1, 6)):
                    kind = self.rng.randrange(4)
                    if kind == 0:
                        msgs.append(arbitration(self.rng.choice([0, 1, 9]), self.rng.choice([1, 99, 100])))
                    else:
                        req = p4runtime_pb2.StreamMessageRequest()
                        req.packet.payload = self.rng.randbytes(self.rng.randrange(0, 2000))
                        req.packet.metadata.add(metadata_id=self.rng.randrange(4), value=self.rng.randbytes(3))
                        msgs.append(req)
                try:
                    for _ in stub.StreamChannel(iter(msgs), timeout=2):
                        pass
                except grpc.RpcError:
                    pass
                self.streams += 1
                self.stop.wait(PACE)
        finally:
            channel.close()


class ConfigPusher(threading.Thread):
    """The primary of role "fuzz" verifying hostile configs (VERIFY: compiled, never committed):
    an include of /etc/hostname, one over the size limit, bytes that are no config, and rt.p4
    itself; once ``bombs`` is set, a macro bomb too. Keeps every reply."""

    def __init__(self, port: int, stop: threading.Event):
        super().__init__(daemon=True)
        self.port, self.stop = port, stop
        self.bombs = threading.Event()
        self.replies: list[tuple[str, grpc.StatusCode, str, float]] = []
        self.client = Client(port)

    def push(self, what: str, device_config: bytes) -> None:
        Req = p4runtime_pb2.SetForwardingPipelineConfigRequest
        req = Req(action=Req.VERIFY, device_id=1, role="fuzz")
        req.election_id.low = 1
        req.config.p4info.CopyFrom(load_p4info())
        req.config.p4_device_config = device_config
        started = time.monotonic()
        try:
            self.client.stub.SetForwardingPipelineConfig(req, timeout=30)
            code, details = grpc.StatusCode.OK, ""
        except grpc.RpcError as err:
            code, details = err.code(), err.details() or ""
        self.replies.append((what, code, details, time.monotonic() - started))

    def run(self) -> None:
        self.client.arbitrate((0, 1), role="fuzz")
        big = config("// " + "x" * (9 << 20) + "\n")
        pushes = [("hostname", config('#include "/etc/hostname"\n')), ("garbage", os.urandom(5000)),
                  ("big", big), ("rt", rt_device_config())]
        while not self.stop.is_set():
            for what, data in pushes:
                if self.stop.is_set():
                    break
                self.push(what, data)
                self.stop.wait(0.05)
            if self.bombs.is_set():
                self.push("bomb", config(macro_bomb()))


def write_entries(primary: Client, ids: range) -> float:
    """Insert one entry a Write as the primary; the seconds it took."""
    started = time.monotonic()
    for i in ids:
        req = p4runtime_pb2.WriteRequest(device_id=1)
        req.election_id.low = 100
        req.updates.append(exact_entry(i))
        primary.stub.Write(req, timeout=10)
    return time.monotonic() - started


def test_soak(tmp_path):
    p = subprocess.Popen([sys.executable, "-m", "dataplane", "serve", "--grpc-addr", "127.0.0.1:0",
                          "--cpu-port", "255", "--compile-timeout", "4"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stop = threading.Event()
    idle: list[IdleStream] = []
    workers: list[threading.Thread] = []
    try:
        m = re.search(r"on 127\.0\.0\.1:(\d+)", p.stdout.readline())
        assert m, p.stderr.read()
        port = int(m.group(1))
        primary = Client(port)
        primary.arbitrate((0, 100))
        primary.set_pipeline()
        idle += [IdleStream(port, arbitration(1, i + 1) if i % 2 else None) for i in range(64)]
        time.sleep(0.5)
        quiet = write_entries(primary, range(500, 1000))
        baseline = rss_kb(p.pid)
        pusher = ConfigPusher(port, stop)
        workers = [Fuzzer(port, 1, stop), Fuzzer(port, 2, stop), StreamFuzzer(port, 3, stop), pusher]
        for w in workers:
            w.start()
        peak = [baseline]

        def watch():
            while not stop.is_set() and p.poll() is None:
                peak[0] = max(peak[0], rss_kb(p.pid))
                time.sleep(0.1)
        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()

        time.sleep(1.0)       # the hostile clients under way
        took = write_entries(primary, range(500))
        q = p4runtime_pb2.Entity()
        q.table_entry.table_id = 33554433
        assert len(primary.read(q)) == 1000
        # A ratio, not seconds: the CPU the hostile clients take costs 7 to 9 times the quiet
        # time on a 2-core machine whatever its speed (3.5 s on one, 10 to 12 s on one 3x slower)
        assert took < 20 * quiet, f"500 writes took {took:.1f} s, {quiet:.2f} s on the quiet server"

        # then macro bombs among the configs: one is refused at the limit, the next compiles now
        pusher.bombs.set()
        end = time.monotonic() + 20
        while (not any(r[0] == "bomb" for r in pusher.replies) or not compile_children(p.pid)) \
                and time.monotonic() < end:
            assert p.poll() is None, p.stderr.read()
            time.sleep(0.05)
        assert compile_children(p.pid), pusher.replies
        assert p.poll() is None
        assert primary.stub.Capabilities(p4runtime_pb2.CapabilitiesRequest(), timeout=5).p4runtime_api_version
        final = rss_kb(p.pid)

        replied = list(pusher.replies)      # the bomb compiling now is cut short by the SIGTERM
        sigterm = time.monotonic()
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=10)
        stopped_in = time.monotonic() - sigterm
        stop.set()
    finally:
        stop.set()
        for s in idle:
            s.close()
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 0 and stopped_in < 2.0, (p.returncode, stopped_in, err)

    replies = {what: [(code, details, t) for w, code, details, t in replied if w == what]
               for what in ("hostname", "garbage", "big", "rt", "bomb")}
    for code, details, _ in replies["hostname"]:
        assert code == grpc.StatusCode.INVALID_ARGUMENT and '#include "/etc/hostname" is refused' in details
        assert HOSTNAME not in details.splitlines() and (len(HOSTNAME) < 4 or HOSTNAME not in details)
    assert all(code == grpc.StatusCode.RESOURCE_EXHAUSTED for code, _, _ in replies["big"])
    assert all(code == grpc.StatusCode.INVALID_ARGUMENT for code, _, _ in replies["garbage"])
    assert all(code == grpc.StatusCode.OK for code, _, _ in replies["rt"])
    for code, details, t in replies["bomb"]:
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "did not compile within 4 s" in details
        assert t < 4 + 2.0, t
    assert replies["bomb"] and replies["hostname"]
    fuzzed = sum(w.sent for w in workers if isinstance(w, Fuzzer))
    assert fuzzed > 200 and workers[2].streams > 20, (fuzzed, workers[2].streams)
    # Memory, in kB: 64 streams cost about 5 MB and 1,000 entries 1 MB; the rest is the buffers of
    # three 65 MiB messages and a 9 MiB config every few pushes, which the allocator keeps (measured
    # 60 to 100 MB). What grew without bound before (an outbox per stream, a packet-out backlog,
    # grpcio's state of every unparsable call) has tests of its own.
    assert final - baseline < 200_000 and peak[0] - baseline < 300_000, (baseline, final, peak[0])
    print(f"\nsoak: 500 writes in {took:.2f} s; {fuzzed} hostile calls, {workers[2].streams} hostile streams, "
          f"{len(replied)} configs; RSS {baseline} -> {final} kB (peak {peak[0]}); SIGTERM took "
          f"{stopped_in:.2f} s")
