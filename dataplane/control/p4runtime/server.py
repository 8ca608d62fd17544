"""The P4Runtime gRPC service of one device, and the server that runs it.

``P4RuntimeServer(live).start()`` serves the ``LiveSwitch`` ``live`` on ``address`` (port 0:
one the OS picks; ``server.port`` says which). One process may run several servers, one
per device, each on its own port (``dataplane run --serve``). Every call into the switch
holds ``live.lock``; streams get arbitration, packet-in and digests from a small poller.

A server that outlasts its clients. gRPC's synchronous server gives every call a thread of
its pool for as long as the call lasts, so a StreamChannel holds one until the client leaves:
twenty idle streams once took all sixteen workers, and every Write waited. The streams now
have threads of their own: the pool is ``max_streams`` threads larger than the ``WORKERS``
kept for the unary calls, and a stream past ``max_streams`` is refused (RESOURCE_EXHAUSTED),
so open streams can never take a unary call's thread. Why not grpc.aio, where an idle stream
costs no thread at all: every call here ends in blocking work (the switch's lock, which the
simulator of ``run --serve`` holds while it runs; the data plane itself on packet-out; a
compile in a child process), which an event loop would hand to a thread pool anyway, and the
arbitration, digest and packet-in paths are threads and locks that would each need a bridge
into the loop. An idle stream costs two parked threads here (its call and the reader of its
requests) and about 80 kB of resident memory (measured with 64 and 128 open streams);
``max_streams`` bounds them.
What waits for a client is bounded too (``streams``): an outbox per stream that drops
packet-ins nobody reads, and packet-outs served a stream at a time in turn, so one client's
flood cannot starve another's. A pushed config compiles in a child process with limits on
size, time and memory (``compiler``), so no compile runs on in the server after the client
or the server has gone.
"""
from __future__ import annotations

import threading
from typing import Any

import grpc
from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc

from dataplane.control.p4runtime import entities, handlers, idle
from dataplane.control.p4runtime.address import join_address, split_address
from dataplane.control.p4runtime.arbitration import Arbiter, Stream
from dataplane.control.p4runtime.compiler import DEFAULT_TIMEOUT, BoundedCompiler
from dataplane.control.p4runtime.digests import DigestQueue
from dataplane.control.p4runtime.listen import start_server
from dataplane.control.p4runtime.packet_io import packet_in_message, packet_out_bytes
from dataplane.control.p4runtime.pipeline import Pipelines
from dataplane.control.p4runtime.status import P4RuntimeError, abort, abort_write, invalid
from dataplane.control.p4runtime.streams import Outbox, PacketOuts, Slots
from dataplane.control.p4runtime.tls import TlsFiles

API_VERSION = "1.4.1"
WORKERS = 16                  # threads for the unary calls, whatever the streams do
DEFAULT_MAX_STREAMS = 128     # StreamChannels open at once (--max-streams)
MAX_MESSAGE = 64 << 20        # bytes of one gRPC message either way


class P4RuntimeService(p4runtime_pb2_grpc.P4RuntimeServicer):
    """The six RPCs of ``p4.v1.P4Runtime`` for one device (a ``LiveSwitch``)."""

    def __init__(self, live: Any, *, compiler: BoundedCompiler | None = None,
                 max_streams: int = DEFAULT_MAX_STREAMS):
        self.live = live
        self.arbiter = Arbiter(live.device_id)
        self.pipelines = Pipelines(live, compiler or BoundedCompiler())
        self.digests = DigestQueue()
        self.slots = Slots(max_streams)
        self.packet_outs = PacketOuts(self._packet_out)
        self.stopping = threading.Event()
        self._outboxes: set[Outbox] = set()
        self._qlock = threading.Lock()

    # ---- unary RPCs ----------------------------------------------------------------------------
    def _check_device(self, device_id: int) -> None:
        if device_id != self.live.device_id:
            raise P4RuntimeError(grpc.StatusCode.NOT_FOUND, f"no device with id {device_id} "
                                 f"(this server's device is {self.live.device_id})")

    def _state(self):
        state = self.pipelines.current
        if state is None:
            raise P4RuntimeError(grpc.StatusCode.FAILED_PRECONDITION,
                                 "no forwarding pipeline is set (send SetForwardingPipelineConfig)")
        return state

    def Write(self, request, context):
        try:
            self._check_device(request.device_id)
            self.arbiter.check_primary(request.role, request.election_id if request.HasField("election_id") else None)
            with self.live.lock:
                results = entities.write_batch(self._state(), request.updates, request.atomicity)
        except P4RuntimeError as err:
            abort(context, err)
        if any(results):
            abort_write(context, results)
        return p4runtime_pb2.WriteResponse()

    def Read(self, request, context):
        try:
            self._check_device(request.device_id)
            with self.live.lock:
                state = self._state()
                found = [e for q in request.entities for e in entities.read_entities(state, q)]
        except P4RuntimeError as err:
            abort(context, err)
        for i in range(0, max(len(found), 1), 1000):
            yield p4runtime_pb2.ReadResponse(entities=found[i:i + 1000])

    def SetForwardingPipelineConfig(self, request, context):
        try:
            self._check_device(request.device_id)
            self.arbiter.check_primary(request.role, request.election_id if request.HasField("election_id") else None)
            self.pipelines.set(request, self._replay,
                               abandon=lambda: self.stopping.is_set() or not context.is_active())
            self.digests = DigestQueue()
        except P4RuntimeError as err:
            abort(context, err)
        return p4runtime_pb2.SetForwardingPipelineConfigResponse()

    def GetForwardingPipelineConfig(self, request, context):
        try:
            self._check_device(request.device_id)
            return self.pipelines.get(request)
        except P4RuntimeError as err:
            abort(context, err)

    def Capabilities(self, request, context):
        return p4runtime_pb2.CapabilitiesResponse(p4runtime_api_version=API_VERSION)

    def _replay(self, old, new) -> None:
        """RECONCILE_AND_COMMIT to a different pipeline: write what the old one holds into the new one."""
        with self.live.lock:
            for update in _state_updates(old):
                try:
                    entities.apply_update(new, update)
                except P4RuntimeError as err:
                    raise invalid(f"RECONCILE_AND_COMMIT cannot keep the forwarding state: {err.message}") from err

    # ---- the stream ----------------------------------------------------------------------------
    def StreamChannel(self, request_iterator, context):
        if not self.slots.take():
            abort(context, P4RuntimeError(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                          f"this server has {self.slots.limit} streams open, its limit "
                                          f"(--max-streams); close one or try later"))
        outbox = Outbox()
        stream = Stream(outbox.put)
        self.packet_outs.open(stream)
        with self._qlock:
            self._outboxes.add(outbox)

        def ended() -> None:       # the client went away (or the call ended): free what waits for it
            self.packet_outs.forget(stream)
            outbox.close()

        def reader() -> None:
            try:
                for req in request_iterator:
                    self._on_request(stream, req)
                self.packet_outs.drain(stream)     # its packet-outs (and their errors) before the end
                outbox.close()
            except P4RuntimeError as err:
                outbox.close(err)
            except grpc.RpcError:
                outbox.close()
            except Exception as err:   # a bug must not leave the client hanging
                outbox.close(P4RuntimeError(grpc.StatusCode.INTERNAL, f"{type(err).__name__}: {err}"))

        try:
            context.add_callback(ended)
            threading.Thread(target=reader, name="p4rt-stream", daemon=True).start()
            yield from outbox
            if outbox.error is not None:
                abort(context, outbox.error)
        finally:
            self.packet_outs.forget(stream)
            self.arbiter.remove(stream)
            with self._qlock:
                self._outboxes.discard(outbox)
            self.slots.give_back()

    def _on_request(self, stream: Stream, req: p4runtime_pb2.StreamMessageRequest) -> None:
        which = req.WhichOneof("update")
        if which == "arbitration":
            self.arbiter.update(stream, req.arbitration)
            return
        if stream.role is None:
            raise P4RuntimeError(grpc.StatusCode.FAILED_PRECONDITION,
                                 "the first message of a stream must be a MasterArbitrationUpdate")
        if which == "packet":
            self.packet_outs.submit(stream, req.packet)   # in turn with the other streams' packet-outs
        elif which == "digest_ack":
            self.digests.ack(req.digest_ack)

    def _packet_out(self, stream: Stream, packet: p4runtime_pb2.PacketOut) -> None:
        state, cpu = self.pipelines.current, self.live.cpu_port
        try:
            if stream.election_id is None or self.arbiter.primary(stream.role) is not stream:
                raise P4RuntimeError(grpc.StatusCode.PERMISSION_DENIED, "only the primary client may send packets")
            if state is None:
                raise P4RuntimeError(grpc.StatusCode.FAILED_PRECONDITION, "no forwarding pipeline is set")
            if cpu is None:
                raise P4RuntimeError(grpc.StatusCode.FAILED_PRECONDITION,
                                     "the switch has no CPU port (start it with --cpu-port N)")
            data = packet_out_bytes(state, packet)
            self.live.inject(cpu, data)
        except Exception as err:   # a bad packet or the data plane failing on it: the stream lives on
            if not isinstance(err, P4RuntimeError):
                err = P4RuntimeError(grpc.StatusCode.INTERNAL, f"the packet-out failed in the data plane: "
                                     f"{type(err).__name__}: {err}")
            msg = p4runtime_pb2.StreamMessageResponse()
            msg.error.canonical_code = err.code.value[0]
            msg.error.message = err.message
            msg.error.packet_out.packet_out.CopyFrom(packet)
            stream.send(msg)

    def on_packet(self, port: int, data: bytes) -> None:
        """LiveSwitch listener: a packet to the CPU port becomes a PacketIn for every primary."""
        state = self.pipelines.current
        if port != self.live.cpu_port or state is None:
            return
        msg = p4runtime_pb2.StreamMessageResponse(packet=packet_in_message(state, data))
        for s in self.arbiter.primaries():
            s.send(msg)

    def poll(self) -> None:
        """Move the data plane's digests into lists and send those that are due."""
        state = self.pipelines.current
        if state is None:
            return
        with self.live.lock:
            if state.switch is not self.live.switch:
                return
            for receiver, values in state.switch.digests():
                self.digests.add(state, receiver, values)
            messages = [p4runtime_pb2.StreamMessageResponse(digest=d) for d in self.digests.due(state)]
            # Every poll, so the sweeps keep BMv2's phase: from the pipeline's start, not the first entry.
            messages += [p4runtime_pb2.StreamMessageResponse(idle_timeout_notification=n)
                         for n in idle.expired(state, state.now_us())]
        for msg in messages:
            for s in self.arbiter.primaries():
                s.send(msg)

    def close_streams(self) -> None:
        """End every stream (the server stops): the packet-out thread ends, the outboxes close."""
        self.packet_outs.close()
        with self._qlock:
            for outbox in self._outboxes:
                outbox.close()


def _state_updates(state):
    """The updates that rebuild ``state``'s forwarding state (const tables left out: the program has them)."""
    Update, Entity = p4runtime_pb2.Update, p4runtime_pb2.Entity
    const = {t.preamble.id for t in state.p4info.tables if t.is_const_table}
    queries = [Entity(action_profile_member=p4runtime_pb2.ActionProfileMember()),
               Entity(action_profile_group=p4runtime_pb2.ActionProfileGroup())]
    queries += [Entity(table_entry=p4runtime_pb2.TableEntry(table_id=t.preamble.id))
                for t in state.p4info.tables if t.preamble.id not in const]
    pre = p4runtime_pb2.PacketReplicationEngineEntry
    queries += [Entity(packet_replication_engine_entry=pre(multicast_group_entry=p4runtime_pb2.MulticastGroupEntry())),
                Entity(packet_replication_engine_entry=pre(clone_session_entry=p4runtime_pb2.CloneSessionEntry())),
                Entity(digest_entry=p4runtime_pb2.DigestEntry())]
    for q in queries:
        for e in entities.read_entities(state, q):
            yield Update(type=Update.INSERT, entity=e)
    for t in state.p4info.tables:
        if t.preamble.id not in const and not t.const_default_action_id:
            q = Entity(table_entry=p4runtime_pb2.TableEntry(table_id=t.preamble.id, is_default_action=True))
            for e in entities.read_entities(state, q):
                yield Update(type=Update.MODIFY, entity=e)
    fixed = [Entity(register_entry=p4runtime_pb2.RegisterEntry()), Entity(counter_entry=p4runtime_pb2.CounterEntry()),
             Entity(meter_entry=p4runtime_pb2.MeterEntry()), Entity(value_set_entry=p4runtime_pb2.ValueSetEntry())]
    for q in fixed:
        for e in entities.read_entities(state, q):
            yield Update(type=Update.MODIFY, entity=e)


class P4RuntimeServer:
    """A gRPC server for one device; ``start()`` returns the port, ``stop()`` ends every stream.

    ``max_streams``: StreamChannels open at once (more are refused). ``compile_timeout``: the
    wall-clock seconds a pushed config may take to compile, with ``compiler`` (a
    ``BoundedCompiler``, shared by the servers of ``run --serve``) made for it if not given.
    ``tls``: serve over TLS with these files (mutual TLS with a CA); plaintext otherwise.
    ValueError for an address whose port is not 0..65535."""

    def __init__(self, live: Any, address: str = "127.0.0.1:9559", *,
                 p4info: p4info_pb2.P4Info | None = None, device_config: bytes | None = None,
                 poll_interval: float = 0.01, max_streams: int = DEFAULT_MAX_STREAMS,
                 compile_timeout: float = DEFAULT_TIMEOUT, compiler: BoundedCompiler | None = None,
                 tls: TlsFiles | None = None):
        self.host, port = split_address(address)
        self.address = join_address(self.host, port)
        if max_streams < 1:
            raise ValueError(f"max_streams must be at least 1, not {max_streams}")
        self.live = live
        self.max_streams = max_streams
        self.tls = tls
        self._own_compiler = compiler is None
        self.compiler = compiler if compiler is not None else BoundedCompiler(timeout=compile_timeout)
        self.service = P4RuntimeService(live, compiler=self.compiler, max_streams=max_streams)
        self.port: int | None = None
        self._server: grpc.Server | None = None
        self._stop = threading.Event()
        self._poller: threading.Thread | None = None
        self._unlisten = None
        self._interval = poll_interval
        if p4info is not None and device_config is not None:
            # The pipeline a program given on the command line starts with; a switch already loaded
            # from it is kept (it may hold --entries), with the P4Info checked against it.
            self.service.pipelines.start_with(p4info, device_config, live.switch)

    def start(self) -> int:
        """Listen and serve; OSError if the address cannot be listened on (a port in use is named)."""
        # WORKERS for the unary calls plus a thread for every stream the limit lets in, and a few
        # for the streams refused past it (each holds a thread only to be told so).
        server, port = start_server(self.address, self.host, self.tls, WORKERS + self.max_streams + 4,
                                    MAX_MESSAGE, "p4rt", lambda s: handlers.add_to_server(self.service, s))
        self._server, self.port = server, port
        self._unlisten = self.live.listen(self.service.on_packet)
        self._poller = threading.Thread(target=self._poll, name="p4rt-poll", daemon=True)
        self._poller.start()
        return port

    def _poll(self) -> None:
        while not self._stop.wait(self._interval):
            self.service.poll()

    def stop(self, grace: float = 0.5) -> None:
        """Stop serving: stop the compiles under way, close every stream, end the poller and
        release the port."""
        if self._server is None:
            return
        self._stop.set()
        self.service.stopping.set()       # a compile under way gives up within 0.1 s
        if self._own_compiler:
            self.compiler.close()
        if self._unlisten is not None:
            self._unlisten()
        self.service.close_streams()
        self._server.stop(grace).wait()
        if self._poller is not None:
            self._poller.join(timeout=2)
        self._server = None

    def __enter__(self) -> "P4RuntimeServer":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


__all__ = ["P4RuntimeServer", "P4RuntimeService"]
