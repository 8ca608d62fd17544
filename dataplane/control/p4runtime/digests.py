"""Digests (spec sections 9.9 and 16.2): configuration entries, DigestList batching, acknowledgement.

The data plane appends ``(receiver, values)`` to the switch's digest list; the server's
poller hands them here. A digest is sent only once a controller has configured it with a
DigestEntry. Lists close at ``max_list_size`` messages or after ``max_timeout_ns``; until a
list is acknowledged (DigestListAck) or ``ack_timeout_ns`` passes, a digest equal to one
in it is not sent again, as the spec asks.
"""
from __future__ import annotations

import itertools
import time
from typing import Any, Iterator

import grpc
from p4.v1 import p4data_pb2, p4runtime_pb2

from dataplane.control.p4runtime.codec import encode
from dataplane.control.p4runtime.context import PipelineState
from dataplane.control.p4runtime.status import P4RuntimeError, not_found

Update = p4runtime_pb2.Update


def write_digest(state: PipelineState, kind: int, e: p4runtime_pb2.DigestEntry) -> None:
    d = state.index.get("digests", e.digest_id, "digest")
    configs = state.digest_configs
    if kind == Update.INSERT and e.digest_id in configs:
        raise P4RuntimeError(grpc.StatusCode.ALREADY_EXISTS, f"digest '{d.preamble.name}' is configured already")
    if kind in (Update.MODIFY, Update.DELETE) and e.digest_id not in configs:
        raise not_found(f"digest '{d.preamble.name}' is not configured")
    if kind == Update.DELETE:
        del configs[e.digest_id]
        return
    cfg = p4runtime_pb2.DigestEntry.Config()
    cfg.CopyFrom(e.config)
    configs[e.digest_id] = cfg


def read_digests(state: PipelineState, q: p4runtime_pb2.DigestEntry) -> Iterator:
    for did, cfg in state.digest_configs.items():
        if not q.digest_id or q.digest_id == did:
            out = p4runtime_pb2.DigestEntry(digest_id=did)
            out.config.CopyFrom(cfg)
            yield out


class DigestQueue:
    """Digests waiting to be sent and lists waiting for an acknowledgement, for one pipeline."""

    def __init__(self):
        self._ids = itertools.count(1)
        self.pending: dict[int, list[tuple]] = {}          # digest id -> values not yet sent
        self.opened: dict[int, float] = {}                 # digest id -> when its first pending arrived
        self.unacked: dict[tuple[int, int], tuple[float, set]] = {}  # (digest, list) -> (sent at, values)

    def add(self, state: PipelineState, receiver: Any, values: tuple) -> None:
        did = _digest_id(state, receiver, values)
        if did is None or did not in state.digest_configs:
            return
        if any(values in sent for (d, _), (_, sent) in self.unacked.items() if d == did):
            return
        if values in self.pending.get(did, ()):
            return
        self.pending.setdefault(did, []).append(values)
        self.opened.setdefault(did, time.monotonic())

    def ack(self, ack: p4runtime_pb2.DigestListAck) -> None:
        self.unacked.pop((ack.digest_id, ack.list_id), None)

    def due(self, state: PipelineState) -> list[p4runtime_pb2.DigestList]:
        """The lists to send now (size or timeout reached); forgets lists whose ack timed out."""
        now = time.monotonic()
        for key, (sent_at, _) in list(self.unacked.items()):
            cfg = state.digest_configs.get(key[0])
            if cfg is None or (cfg.ack_timeout_ns and now - sent_at >= cfg.ack_timeout_ns / 1e9):
                del self.unacked[key]
        out = []
        for did, values in list(self.pending.items()):
            cfg = state.digest_configs.get(did)
            if cfg is None:
                del self.pending[did]
                continue
            full = cfg.max_list_size > 0 and len(values) >= cfg.max_list_size
            if not (full or now - self.opened[did] >= cfg.max_timeout_ns / 1e9):
                continue
            size = cfg.max_list_size or len(values)
            batch, rest = values[:size], values[size:]
            msg = p4runtime_pb2.DigestList(digest_id=did, list_id=next(self._ids), timestamp=time.time_ns())
            for v in batch:
                msg.data.append(_p4data(state, did, v))
            self.unacked[(did, msg.list_id)] = (now, set(batch))
            if rest:
                self.pending[did] = rest
                self.opened[did] = now
            else:
                del self.pending[did], self.opened[did]
            out.append(msg)
        return out


def _members(state: PipelineState, digest) -> list[int]:
    """The widths of the fields of ``digest``'s struct (from P4Info's type info)."""
    spec = digest.type_spec
    if spec.HasField("struct"):
        struct = state.p4info.type_info.structs.get(spec.struct.name)
        if struct is not None:
            return [_width(m.type_spec) for m in struct.members]
    if spec.HasField("bitstring"):
        return [_width(spec)]
    return []


def _width(spec) -> int:
    if spec.HasField("bitstring"):
        bs = spec.bitstring
        return getattr(bs, bs.WhichOneof("type_spec")).bitwidth
    return 0   # bool and others: the value as given


def _digest_id(state: PipelineState, receiver: Any, values: tuple) -> int | None:
    """The P4Info digest a data-plane digest belongs to: by name (PSA's Digest instances), by its
    struct type (v1model's ``digest<T>``), else the first whose struct has as many fields (a
    v1model digest of a field list, which P4Info names ``digest_N``)."""
    digests = state.index.by_kind["digests"]
    if isinstance(receiver, str):
        for did, d in digests.items():
            if d.preamble.name == receiver or receiver.endswith("." + d.preamble.name) \
                    or d.preamble.name.endswith("." + receiver.split(".")[-1]):
                return did
    type_name = getattr(values, "type_name", None)
    if type_name is not None:   # v1model's digest<T> of a struct: P4Info's digest of that type
        for did, d in digests.items():
            if d.type_spec.HasField("struct") and d.type_spec.struct.name == type_name:
                return did
    fits = [did for did, d in digests.items() if len(_members(state, d)) == len(values)]
    return fits[0] if fits else None


def _p4data(state: PipelineState, did: int, values: tuple) -> p4data_pb2.P4Data:
    d = state.index.get("digests", did)
    widths = _members(state, d)
    data = p4data_pb2.P4Data()
    if d.type_spec.HasField("bitstring"):
        data.bitstring = encode(int(values[0]), widths[0])
        return data
    for v, w in zip(values, widths):
        member = data.struct.members.add()
        if isinstance(v, bool) and not w:
            member.bool = v
        else:
            member.bitstring = encode(int(v), w or None)
    return data
