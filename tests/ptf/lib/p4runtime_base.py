"""A PTF base test that drives the switch over P4Runtime, in the style of p4c's tools/ptf/base_test.py.

Every test connects to the server named by the test parameters, becomes primary, sets the
pipeline (which clears the switch's state, so tests do not see each other's entries) and
writes the entries it needs by name; names are looked up in the P4Info file. Test params
(``ptf --test-params "k=v;..."``):

  grpcaddr   the server, default 127.0.0.1:9559
  device_id  default 1
  p4info     the P4Info text file (``dataplane compile PROG --p4info FILE``)
  config     the device config file sent with SetForwardingPipelineConfig
  cpu_port   the server's CPU port (packet-in and packet-out), if it has one
"""
from __future__ import annotations

import ipaddress
import queue
import threading

import grpc
import ptf
import ptf.testutils as testutils
from google.protobuf import text_format
from google.rpc import status_pb2
from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc
from ptf.base_tests import BaseTest


def encode(value, bitwidth: int) -> bytes:
    """A value in P4Runtime's canonical form: big-endian, no leading zero bytes (0 is one byte).

    ``value`` is an int, a MAC address ``aa:bb:..``, an IPv4 address ``10.0.0.1`` or bytes.
    """
    if isinstance(value, str):
        if ":" in value:
            value = int(value.replace(":", ""), 16)
        else:
            value = int(ipaddress.ip_address(value))
    elif isinstance(value, bytes):
        value = int.from_bytes(value, "big")
    if value < 0 or value >> bitwidth:
        raise ValueError(f"{value} does not fit in {bitwidth} bits")
    return value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big")


class Exact:
    def __init__(self, name, value):
        self.name, self.value = name, value

    def add_to(self, field: p4info_pb2.MatchField, match: p4runtime_pb2.FieldMatch) -> None:
        match.exact.value = encode(self.value, field.bitwidth)


class Lpm:
    def __init__(self, name, value, prefix_len: int):
        self.name, self.value, self.prefix_len = name, value, prefix_len

    def add_to(self, field, match) -> None:
        # P4Runtime wants the bits past the prefix zero; mask them here so tests can say 10.0.1.7/24
        raw = int.from_bytes(encode(self.value, field.bitwidth), "big")
        mask = ((1 << self.prefix_len) - 1) << (field.bitwidth - self.prefix_len)
        match.lpm.value = encode(raw & mask, field.bitwidth)
        match.lpm.prefix_len = self.prefix_len


class Ternary:
    def __init__(self, name, value, mask):
        self.name, self.value, self.mask = name, value, mask

    def add_to(self, field, match) -> None:
        mask = int.from_bytes(encode(self.mask, field.bitwidth), "big")
        value = int.from_bytes(encode(self.value, field.bitwidth), "big")
        match.ternary.value = encode(value & mask, field.bitwidth)
        match.ternary.mask = encode(mask, field.bitwidth)


class P4RuntimeTest(BaseTest):
    """Connect, become primary, set the pipeline; helpers to write and read entries by name."""

    election_id = (0, 1)

    def setUp(self):
        BaseTest.setUp(self)
        self.dataplane = ptf.dataplane_instance
        self.dataplane.flush()
        self.device_id = int(testutils.test_param_get("device_id", 1))
        self.channel = grpc.insecure_channel(testutils.test_param_get("grpcaddr", "127.0.0.1:9559"))
        self.stub = p4runtime_pb2_grpc.P4RuntimeStub(self.channel)
        self.p4info = p4info_pb2.P4Info()
        with open(testutils.test_param_get("p4info")) as f:
            text_format.Merge(f.read(), self.p4info)
        self._index_p4info()
        self._open_stream()
        self.set_pipeline()

    def tearDown(self):
        self._requests.put(None)            # ends the stream: the server forgets this client
        self._reader.join(timeout=5)
        self.channel.close()
        BaseTest.tearDown(self)

    # --- connection ----------------------------------------------------------------
    def _open_stream(self) -> None:
        self._requests: queue.Queue = queue.Queue()
        self.stream_in: queue.Queue = queue.Queue()
        stream = self.stub.StreamChannel(iter(self._requests.get, None))

        def read() -> None:
            try:
                for msg in stream:
                    self.stream_in.put(msg)
            except grpc.RpcError:
                pass        # the stream ends with the test
        self._reader = threading.Thread(target=read, daemon=True)
        self._reader.start()
        req = p4runtime_pb2.StreamMessageRequest()
        req.arbitration.device_id = self.device_id
        req.arbitration.election_id.high, req.arbitration.election_id.low = self.election_id
        self._requests.put(req)
        reply = self.get_stream_message("arbitration", timeout=5)
        self.assertIsNotNone(reply, "no arbitration reply from the server")
        self.assertEqual(reply.arbitration.status.code, grpc.StatusCode.OK.value[0],
                         "this client did not become primary")

    def get_stream_message(self, kind: str, timeout: float = 2.0):
        """The next message of ``kind`` (arbitration, packet, digest, ...) on the stream, or None."""
        try:
            while True:
                msg = self.stream_in.get(timeout=timeout)
                if msg.WhichOneof("update") == kind:
                    return msg
        except queue.Empty:
            return None

    def send_packet_out(self, payload: bytes) -> None:
        """A PacketOut with no metadata: the packet enters the pipeline on the CPU port."""
        req = p4runtime_pb2.StreamMessageRequest()
        req.packet.payload = bytes(payload)
        self._requests.put(req)

    def get_packet_in(self, timeout: float = 2.0):
        """The payload of the next PacketIn on the stream, or None."""
        msg = self.get_stream_message("packet", timeout)
        return None if msg is None else msg.packet.payload

    def set_pipeline(self) -> None:
        req = p4runtime_pb2.SetForwardingPipelineConfigRequest()
        req.device_id = self.device_id
        req.election_id.high, req.election_id.low = self.election_id
        req.action = p4runtime_pb2.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT
        req.config.p4info.CopyFrom(self.p4info)
        with open(testutils.test_param_get("config"), "rb") as f:
            req.config.p4_device_config = f.read()
        self.stub.SetForwardingPipelineConfig(req)

    # --- names ---------------------------------------------------------------------
    def _index_p4info(self) -> None:
        self._objects = {}
        for kind in ("tables", "actions", "counters", "direct_counters", "meters", "registers",
                     "action_profiles", "controller_packet_metadata"):
            for obj in getattr(self.p4info, kind):
                for name in (obj.preamble.name, obj.preamble.alias):
                    self._objects[(kind, name)] = obj

    def get_obj(self, kind: str, name: str):
        return self._objects[(kind, name)]

    def get_obj_id(self, kind: str, name: str) -> int:
        return self.get_obj(kind, name).preamble.id

    # --- writes --------------------------------------------------------------------
    def write(self, *updates: p4runtime_pb2.Update) -> None:
        req = p4runtime_pb2.WriteRequest()
        req.device_id = self.device_id
        req.election_id.high, req.election_id.low = self.election_id
        req.updates.extend(updates)
        self.stub.Write(req)

    def table_entry(self, table: str, matches=(), action: str | None = None, params=None,
                    priority: int | None = None, default: bool = False) -> p4runtime_pb2.TableEntry:
        t = self.get_obj("tables", table)
        entry = p4runtime_pb2.TableEntry(table_id=t.preamble.id, is_default_action=default)
        fields = {f.name: f for f in t.match_fields}
        for m in matches:
            fm = entry.match.add(field_id=fields[m.name].id)
            m.add_to(fields[m.name], fm)
        if priority is not None:
            entry.priority = priority
        if action is not None:
            a = self.get_obj("actions", action)
            entry.action.action.action_id = a.preamble.id
            widths = {p.name: p for p in a.params}
            for name, value in (params or {}).items():
                entry.action.action.params.add(param_id=widths[name].id,
                                               value=encode(value, widths[name].bitwidth))
        return entry

    def _update(self, kind, entry) -> p4runtime_pb2.Update:
        update = p4runtime_pb2.Update(type=kind)
        update.entity.table_entry.CopyFrom(entry)
        return update

    def insert(self, table, matches=(), action=None, params=None, priority=None) -> None:
        self.write(self._update(p4runtime_pb2.Update.INSERT,
                                self.table_entry(table, matches, action, params, priority)))

    def modify(self, table, matches=(), action=None, params=None, priority=None) -> None:
        self.write(self._update(p4runtime_pb2.Update.MODIFY,
                                self.table_entry(table, matches, action, params, priority)))

    def delete(self, table, matches=(), priority=None) -> None:
        self.write(self._update(p4runtime_pb2.Update.DELETE,
                                self.table_entry(table, matches, priority=priority)))

    def set_default(self, table, action, params=None) -> None:
        self.write(self._update(p4runtime_pb2.Update.MODIFY,
                                self.table_entry(table, (), action, params, default=True)))

    # --- reads ---------------------------------------------------------------------
    def read_table(self, table: str) -> list[p4runtime_pb2.TableEntry]:
        """Every entry of ``table`` (a wildcard read on its id)."""
        req = p4runtime_pb2.ReadRequest(device_id=self.device_id)
        req.entities.add().table_entry.table_id = self.get_obj_id("tables", table)
        return [e.table_entry for reply in self.stub.Read(req) for e in reply.entities]

    def assert_write_fails(self, code: grpc.StatusCode, *updates) -> None:
        """The write fails with ``code``: as the call's status, or (a batch's way, UNKNOWN on
        top) as the ``p4.v1.Error`` of an update in the status details."""
        with self.assertRaises(grpc.RpcError) as ctx:
            self.write(*updates)
        err = ctx.exception
        codes = {err.code().value[0]}
        for key, value in err.trailing_metadata() or ():
            if key == "grpc-status-details-bin":
                status = status_pb2.Status.FromString(value)
                for detail in status.details:
                    p4_error = p4runtime_pb2.Error()
                    if detail.Unpack(p4_error):
                        codes.add(p4_error.canonical_code)
        self.assertIn(code.value[0], codes, f"write failed with {err.code()}: {err.details()}")
