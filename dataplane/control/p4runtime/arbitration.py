"""Controller arbitration: per role, the stream with the highest election id is the primary.

P4Runtime spec section 5 ("Client Arbitration and Controller Replication"): every stream
opens with a ``MasterArbitrationUpdate`` naming a device, an optional role and an election
id. Within a role each live stream's election id must be distinct; the largest is the
primary, which alone may Write and SetForwardingPipelineConfig. Every stream of the role
is told the outcome: OK for the primary, ALREADY_EXISTS for a backup, with the highest
election id seen for the role (NOT_FOUND when no primary is connected). A role-less
stream has the default role "" and full access.
"""
from __future__ import annotations

import threading
from typing import Callable

import grpc
from google.rpc import code_pb2
from p4.v1 import p4runtime_pb2

from dataplane.control.p4runtime.status import P4RuntimeError

Send = Callable[[p4runtime_pb2.StreamMessageResponse], None]


def election_value(eid: p4runtime_pb2.Uint128) -> int:
    return (eid.high << 64) | eid.low


class Stream:
    """One client's StreamChannel: where to send its messages, and its role and election id."""

    def __init__(self, send: Send):
        self.send = send
        self.role: str | None = None
        self.election_id: int | None = None
        self.device_id: int | None = None


class Arbiter:
    """The streams of one device, grouped by role; thread-safe."""

    def __init__(self, device_id: int):
        self.device_id = device_id
        self._lock = threading.Lock()
        self._streams: list[Stream] = []
        self._highest: dict[str, int] = {}   # role -> highest election id ever seen

    def update(self, stream: Stream, update: p4runtime_pb2.MasterArbitrationUpdate) -> None:
        """Handle a MasterArbitrationUpdate from ``stream``; tell every stream of its role the outcome."""
        if update.device_id != self.device_id:
            raise P4RuntimeError(grpc.StatusCode.NOT_FOUND, f"no device with id {update.device_id} "
                                 f"(this server's device is {self.device_id})")
        role = update.role.name if update.HasField("role") else ""
        if update.HasField("role") and update.role.HasField("config"):
            raise P4RuntimeError(grpc.StatusCode.UNIMPLEMENTED, "role configs are not supported")
        if stream.role is not None and stream.role != role:
            raise P4RuntimeError(grpc.StatusCode.FAILED_PRECONDITION,
                                 "a stream cannot change its role; open a new stream")
        eid = election_value(update.election_id) if update.HasField("election_id") else None
        with self._lock:
            if eid is not None and any(s is not stream and s.role == role and s.election_id == eid
                                       for s in self._streams):
                raise P4RuntimeError(grpc.StatusCode.INVALID_ARGUMENT,
                                     f"election id {eid} is already used by another client of role '{role}'")
            before = self._primary(role)
            stream.role, stream.election_id, stream.device_id = role, eid, update.device_id
            if stream not in self._streams:
                self._streams.append(stream)
            if eid is not None:
                self._highest[role] = max(self._highest.get(role, 0), eid)
            # A change of primary is news for every stream of the role; otherwise only the sender hears.
            self._notify(role, None if self._primary(role) is not before else stream)

    def remove(self, stream: Stream) -> None:
        """A stream closed: if it was the primary, the others learn who is primary now."""
        with self._lock:
            if stream in self._streams:
                was_primary = self._primary(stream.role or "") is stream
                self._streams.remove(stream)
                if was_primary:
                    self._notify(stream.role or "")

    def primary(self, role: str = "") -> Stream | None:
        with self._lock:
            return self._primary(role)

    def _primary(self, role: str) -> Stream | None:
        candidates = [s for s in self._streams if s.role == role and s.election_id is not None]
        return max(candidates, key=lambda s: s.election_id, default=None)

    def primaries(self) -> list[Stream]:
        """The primary of every role (packet-in and digests go to them)."""
        with self._lock:
            roles = {s.role for s in self._streams}
            return [p for p in (self._primary(r) for r in roles) if p is not None]

    def check_primary(self, role: str, election_id: p4runtime_pb2.Uint128 | None) -> None:
        """PERMISSION_DENIED unless ``election_id`` is that of the role's current primary."""
        eid = election_value(election_id) if election_id is not None else 0
        with self._lock:
            p = self._primary(role)
            if p is None or p.election_id != eid:
                raise P4RuntimeError(grpc.StatusCode.PERMISSION_DENIED,
                                     f"election id {eid} is not that of the primary client of role '{role}'")

    def _notify(self, role: str, only: Stream | None = None) -> None:
        primary = self._primary(role)
        highest = self._highest.get(role, 0)
        for s in self._streams:
            if s.role != role or (only is not None and s is not only):
                continue
            msg = p4runtime_pb2.StreamMessageResponse()
            arb = msg.arbitration
            arb.device_id = self.device_id
            if role:
                arb.role.name = role
            arb.election_id.high, arb.election_id.low = highest >> 64, highest & ((1 << 64) - 1)
            if s is primary:
                arb.status.code = code_pb2.OK
                arb.status.message = "Is primary"
            elif primary is None:
                arb.status.code = code_pb2.NOT_FOUND
                arb.status.message = "No primary client is connected"
            else:
                arb.status.code = code_pb2.ALREADY_EXISTS
                arb.status.message = "Is backup"
            s.send(msg)
