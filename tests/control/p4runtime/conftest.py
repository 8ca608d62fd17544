"""A P4Runtime server on 127.0.0.1 (a port the OS picks) and real gRPC clients for its tests.

Every server and channel is closed by the fixture's finalizer. Skipped where grpc is not
importable (PyPy has no grpcio wheels).
"""
from __future__ import annotations

import queue
import threading
from pathlib import Path

import pytest

try:   # grpcio and p4runtime have no PyPy wheels: every test module here skips itself then
    import grpc
    from google.protobuf import text_format
    from p4.config.v1 import p4info_pb2
    from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc

    from dataplane.control.p4runtime.server import P4RuntimeServer
except ImportError:
    grpc = None

from dataplane.control.device_config import make_device_config  # noqa: E402
from dataplane.control.live import LiveSwitch  # noqa: E402

HERE = Path(__file__).parent
RT_P4 = HERE / "rt.p4"
RT_P4INFO = HERE / "rt.p4info.txtpb"
CPU_PORT = 255


def load_p4info(path: Path = RT_P4INFO) -> p4info_pb2.P4Info:
    return text_format.Parse(path.read_text(), p4info_pb2.P4Info())


class Client:
    """One controller: a channel, a stub and a StreamChannel whose responses land in a queue."""

    def __init__(self, port: int, device_id: int = 1):
        self.device_id = device_id
        self.channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        self.stub = p4runtime_pb2_grpc.P4RuntimeStub(self.channel)
        self.election = (0, 0)
        self.role = ""
        self._out: queue.Queue = queue.Queue()
        self.received: queue.Queue = queue.Queue()
        self.stream_error = None
        self._responses = self.stub.StreamChannel(iter(self._out.get, None))
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        try:
            for msg in self._responses:
                self.received.put(msg)
        except grpc.RpcError as err:
            self.stream_error = err
            self.received.put(err)

    def send(self, msg) -> None:
        self._out.put(msg)

    def next(self, kind: str, timeout: float = 3.0):
        """The next stream message of ``kind`` ("arbitration", "packet", "digest", "error", ...)."""
        while True:
            msg = self.received.get(timeout=timeout)
            if isinstance(msg, grpc.RpcError):
                raise msg
            if msg.WhichOneof("update") == kind:
                return getattr(msg, kind)

    def arbitrate(self, election=(0, 1), role: str | None = None, device_id: int | None = None):
        self.election = election
        self.role = role or ""
        req = p4runtime_pb2.StreamMessageRequest()
        arb = req.arbitration
        arb.device_id = self.device_id if device_id is None else device_id
        arb.election_id.high, arb.election_id.low = election
        if role is not None:
            arb.role.name = role
        self.send(req)
        return self.next("arbitration")

    def _stamp(self, req) -> None:
        req.device_id = self.device_id
        req.election_id.high, req.election_id.low = self.election
        if self.role:
            req.role = self.role

    def set_pipeline(self, p4info=None, device_config: bytes | None = None, action=None, cookie: int | None = None):
        Req = p4runtime_pb2.SetForwardingPipelineConfigRequest
        req = Req(action=Req.VERIFY_AND_COMMIT if action is None else action)
        self._stamp(req)
        req.config.p4info.CopyFrom(load_p4info() if p4info is None else p4info)
        req.config.p4_device_config = rt_device_config() if device_config is None else device_config
        if cookie is not None:
            req.config.cookie.cookie = cookie
        return self.stub.SetForwardingPipelineConfig(req)

    def write(self, *updates, atomicity=None):
        req = p4runtime_pb2.WriteRequest()
        self._stamp(req)
        req.updates.extend(updates)
        if atomicity is not None:
            req.atomicity = atomicity
        return self.stub.Write(req)

    def read(self, *entities) -> list:
        req = p4runtime_pb2.ReadRequest(device_id=self.device_id)
        req.entities.extend(entities)
        return [e for resp in self.stub.Read(req) for e in resp.entities]

    def close(self) -> None:
        self._out.put(None)
        self.channel.close()
        self._reader.join(timeout=2)


_DEVICE_CONFIG: list[bytes] = []


def rt_device_config() -> bytes:
    if not _DEVICE_CONFIG:
        _DEVICE_CONFIG.append(make_device_config(RT_P4))
    return _DEVICE_CONFIG[0]


@pytest.fixture(scope="session")
def compiler():
    """One BoundedCompiler for the servers of the session: rt.p4 is compiled in a child once,
    then remembered (a test of the compile limits starts its server with its own)."""
    from dataplane.control.p4runtime.compiler import BoundedCompiler

    c = BoundedCompiler()
    yield c
    c.close()


@pytest.fixture
def start_server(compiler):
    """``start_server(live=None, **kwargs)`` -> a started P4RuntimeServer; all are stopped at the
    end. The session's compiler unless ``kwargs`` set the compile timeout or the compiler."""
    servers = []

    def start(live=None, **kwargs):
        live = live or LiveSwitch(None, device_id=1, cpu_port=CPU_PORT)
        if "compile_timeout" not in kwargs:
            kwargs.setdefault("compiler", compiler)
        server = P4RuntimeServer(live, "127.0.0.1:0", **kwargs)
        server.start()
        servers.append(server)
        return server
    yield start
    for s in servers:
        s.stop()


@pytest.fixture
def connect():
    """``connect(server)`` -> a Client of that server; all are closed at the end."""
    clients = []

    def make(server, device_id: int = 1):
        c = Client(server.port, device_id)
        clients.append(c)
        return c
    yield make
    for c in clients:
        c.close()


@pytest.fixture
def rt(start_server, connect):
    """(server, primary client) with rt.p4 committed."""
    server = start_server()
    client = connect(server)
    client.arbitrate((0, 1))
    client.set_pipeline()
    return server, client
