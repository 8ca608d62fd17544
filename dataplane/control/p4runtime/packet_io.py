"""Packet-out and packet-in through the CPU port with the ``@controller_header`` metadata (spec section 16.1).

A PacketOut's metadata is laid out as the program's ``packet_out`` header (fields in P4Info
id order, most significant first) and put before the payload, and the packet enters the
switch on the CPU port. A packet the switch sends to the CPU port loses its leading
``packet_in`` header, whose fields become the PacketIn's metadata. Without such a header
in the P4Info the packet passes unchanged, as on BMv2.
"""
from __future__ import annotations

from p4.v1 import p4runtime_pb2

from dataplane.control.p4runtime.codec import decode, encode
from dataplane.control.p4runtime.context import PipelineState
from dataplane.control.p4runtime.status import invalid


def _layout(state: PipelineState, name: str):
    header = state.index.packet_metadata.get(name)
    if header is None:
        return None
    return list(header.metadata)   # the header's field order; an @id may number it otherwise


def packet_out_bytes(state: PipelineState, msg: p4runtime_pb2.PacketOut) -> bytes:
    """The frame a PacketOut puts on the CPU port: the packet_out header, then the payload."""
    fields = _layout(state, "packet_out")
    if fields is None:
        if msg.metadata:
            raise invalid("the P4Info has no packet_out controller header, yet the PacketOut has metadata")
        return bytes(msg.payload)
    given = {m.metadata_id: m.value for m in msg.metadata}
    unknown = set(given) - {f.id for f in fields}
    if unknown:
        raise invalid(f"packet_out has no metadata id {min(unknown)}")
    value, width = 0, 0
    for f in fields:
        v = decode(given[f.id], f.bitwidth, f"packet_out metadata '{f.name}'") if f.id in given else 0
        value, width = (value << f.bitwidth) | v, width + f.bitwidth
    if width % 8:
        raise invalid(f"the packet_out header is {width} bits, not a whole number of bytes")
    return value.to_bytes(width // 8, "big") + bytes(msg.payload)


def packet_in_message(state: PipelineState, data: bytes) -> p4runtime_pb2.PacketIn:
    """The PacketIn for a frame the switch sent to the CPU port."""
    msg = p4runtime_pb2.PacketIn()
    fields = _layout(state, "packet_in")
    if fields is None:
        msg.payload = data
        return msg
    width = sum(f.bitwidth for f in fields)
    size = (width + 7) // 8
    value = int.from_bytes(data[:size], "big") >> (size * 8 - width)
    shift = width
    for f in fields:
        shift -= f.bitwidth
        msg.metadata.add(metadata_id=f.id, value=encode((value >> shift) & ((1 << f.bitwidth) - 1)))
    msg.payload = data[size:]
    return msg
