"""The packet replication engine: multicast groups and clone sessions (spec section 9.10).

A clone session with one replica clones to that port; with several, its copies follow a
private multicast group kept under the key ``("clone", session)`` in the device's group
table, which no P4Runtime group id can collide with.
"""
from __future__ import annotations

from typing import Iterator

import grpc
from p4.v1 import p4runtime_pb2

from dataplane.control.p4runtime.codec import decode
from dataplane.control.p4runtime.context import PipelineState, switch_call
from dataplane.control.p4runtime.status import P4RuntimeError, invalid, not_found

Update = p4runtime_pb2.Update


def _port(r: p4runtime_pb2.Replica) -> int:
    if r.WhichOneof("port_kind") == "port":
        return decode(r.port, 32, "replica port")
    return r.egress_port


def _replicas(msg) -> list[tuple[int, int]]:
    out = [(_port(r), r.instance) for r in msg.replicas]
    if len(set(out)) != len(out):
        raise invalid("the same (port, instance) replica is listed twice")
    return out


def write_pre(state: PipelineState, kind: int, e: p4runtime_pb2.PacketReplicationEngineEntry) -> None:
    which = e.WhichOneof("type")
    if which == "multicast_group_entry":
        _write_group(state, kind, e.multicast_group_entry)
    elif which == "clone_session_entry":
        _write_clone(state, kind, e.clone_session_entry)
    else:
        raise invalid("a PacketReplicationEngineEntry names a multicast group or a clone session")


def _write_group(state, kind, g: p4runtime_pb2.MulticastGroupEntry) -> None:
    sw, gid = state.switch, g.multicast_group_id
    groups = sw.dp.multicast_groups
    if gid == 0:
        raise invalid("multicast group id 0 is not valid")
    if kind == Update.INSERT and gid in groups:
        raise P4RuntimeError(grpc.StatusCode.ALREADY_EXISTS, f"multicast group {gid} exists")
    if kind != Update.INSERT and gid not in groups:
        raise not_found(f"multicast group {gid} does not exist")
    if kind == Update.DELETE:
        switch_call(sw.mc_group_destroy, gid)
        return
    replicas = _replicas(g)
    switch_call(sw._ports, [p for p, _ in replicas], f"multicast group {gid}")
    groups.pop(gid, None)
    switch_call(sw.mc_group_create, gid, replicas)


def _write_clone(state, kind, c: p4runtime_pb2.CloneSessionEntry) -> None:
    sw, sid = state.switch, c.session_id
    sessions = sw.dp.clone_sessions
    if kind == Update.INSERT and sid in sessions:
        raise P4RuntimeError(grpc.StatusCode.ALREADY_EXISTS, f"clone session {sid} exists")
    if kind != Update.INSERT and sid not in sessions:
        raise not_found(f"clone session {sid} does not exist")
    private = ("clone", sid)
    if kind == Update.DELETE:
        switch_call(sw.clone_session_delete, sid)
        sw.dp.multicast_groups.pop(private, None)
        _records(state).pop(sid, None)
        return
    replicas = _replicas(c)
    if not replicas:
        raise invalid(f"clone session {sid} needs at least one replica")
    length = c.packet_length_bytes or None
    if len(replicas) == 1 and replicas[0][1] == 0:
        switch_call(sw.clone_session_add, sid, replicas[0][0], length)
        sw.dp.multicast_groups.pop(private, None)
    else:
        ports = switch_call(sw._ports, [p for p, _ in replicas], f"clone session {sid}")
        switch_call(sw._check_session, sid)
        nodes: dict[int, list[int]] = {}
        for port, (_, rid) in zip(ports, replicas):
            nodes.setdefault(rid, []).append(port)
        sw.dp.multicast_groups[private] = list(nodes.items())
        sessions[sid] = {"group": private, "packet_length": length}
    _records(state)[sid] = _copy(c)


def _records(state) -> dict:
    """The clone sessions as written (the device keeps ports and groups, not the message)."""
    return state.__dict__.setdefault("clone_records", {})


def read_pre(state: PipelineState, q: p4runtime_pb2.PacketReplicationEngineEntry) -> Iterator:
    which = q.WhichOneof("type")
    sw = state.switch
    if which == "multicast_group_entry":
        want = q.multicast_group_entry.multicast_group_id
        for gid, nodes in sorted((k, v) for k, v in sw.dp.multicast_groups.items() if isinstance(k, int)):
            if want and gid != want:
                continue
            out = p4runtime_pb2.PacketReplicationEngineEntry()
            g = out.multicast_group_entry
            g.multicast_group_id = gid
            for rid, ports in nodes:
                for p in ports:
                    g.replicas.add(egress_port=p, instance=rid)
            yield out
    elif which == "clone_session_entry":
        want = q.clone_session_entry.session_id
        for sid, c in sorted(_records(state).items()):
            if not want or sid == want:
                out = p4runtime_pb2.PacketReplicationEngineEntry()
                out.clone_session_entry.CopyFrom(c)
                yield out
    else:
        raise invalid("read a multicast group or a clone session")


def _copy(msg):
    out = type(msg)()
    out.CopyFrom(msg)
    return out


