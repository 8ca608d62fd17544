"""The P4Runtime service's methods as gRPC handlers that parse their requests themselves.

The generated ``add_P4RuntimeServicer_to_server`` lets grpcio parse each request; bytes that are
no message then end the call as INTERNAL ("Exception deserializing request!"), and grpcio's
synchronous server keeps the state of every such call for good: about 500 bytes each, measured
as 1.2 MB a second of growth under a client sending garbage. Here the handlers take the raw
bytes and parse them in the call, so bad bytes are INVALID_ARGUMENT through the ordinary abort
(which grpcio cleans up after) and say which message was expected.
"""
from __future__ import annotations

from typing import Any, Callable, Iterator

import grpc
from p4.v1 import p4runtime_pb2

from dataplane.control.p4runtime.status import P4RuntimeError, abort, invalid

_UNARY = {"Write": (p4runtime_pb2.WriteRequest, p4runtime_pb2.WriteResponse),
          "SetForwardingPipelineConfig": (p4runtime_pb2.SetForwardingPipelineConfigRequest,
                                          p4runtime_pb2.SetForwardingPipelineConfigResponse),
          "GetForwardingPipelineConfig": (p4runtime_pb2.GetForwardingPipelineConfigRequest,
                                          p4runtime_pb2.GetForwardingPipelineConfigResponse),
          "Capabilities": (p4runtime_pb2.CapabilitiesRequest, p4runtime_pb2.CapabilitiesResponse)}


def parse(kind: Any, data: bytes) -> Any:
    """``data`` as a message of type ``kind``; INVALID_ARGUMENT (P4RuntimeError) if it is not one."""
    try:
        return kind.FromString(data)
    except Exception as err:    # DecodeError, or what the pure-Python parser raises on odd bytes
        raise invalid(f"the request is not a valid {kind.DESCRIPTOR.full_name} ({type(err).__name__}: {err})") from None


def _parsed(method: Callable, kind: Any) -> Callable:
    def call(data: bytes, context: grpc.ServicerContext):
        try:
            request = parse(kind, data)
        except P4RuntimeError as err:
            abort(context, err)
        return method(request, context)
    return call


def _parsed_stream(method: Callable) -> Callable:
    def call(chunks: Iterator[bytes], context: grpc.ServicerContext):
        # a bad message ends the stream as any bad request does (the reader turns the error into the status)
        return method((parse(p4runtime_pb2.StreamMessageRequest, data) for data in chunks), context)
    return call


def add_to_server(service: Any, server: grpc.Server) -> None:
    """Register ``service``'s six RPCs (its methods as they are now) on ``server``."""
    handlers = {name: grpc.unary_unary_rpc_method_handler(_parsed(getattr(service, name), req),
                                                          response_serializer=resp.SerializeToString)
                for name, (req, resp) in _UNARY.items()}
    handlers["Read"] = grpc.unary_stream_rpc_method_handler(
        _parsed(service.Read, p4runtime_pb2.ReadRequest),
        response_serializer=p4runtime_pb2.ReadResponse.SerializeToString)
    handlers["StreamChannel"] = grpc.stream_stream_rpc_method_handler(
        _parsed_stream(service.StreamChannel),
        response_serializer=p4runtime_pb2.StreamMessageResponse.SerializeToString)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("p4.v1.P4Runtime", handlers),))
