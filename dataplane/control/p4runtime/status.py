"""Errors as P4Runtime reports them: a gRPC status code and message, and for Write one
``p4.v1.Error`` per update packed into a ``google.rpc.Status`` in ``grpc-status-details-bin``.
"""
from __future__ import annotations

from typing import Sequence

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, status_pb2
from p4.v1 import p4runtime_pb2


class P4RuntimeError(Exception):
    """One failed request or update: a ``grpc.StatusCode`` and a message for the client."""

    def __init__(self, code: grpc.StatusCode, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def invalid(message: str) -> P4RuntimeError:
    return P4RuntimeError(grpc.StatusCode.INVALID_ARGUMENT, message)


def not_found(message: str) -> P4RuntimeError:
    return P4RuntimeError(grpc.StatusCode.NOT_FOUND, message)


def unimplemented(message: str) -> P4RuntimeError:
    return P4RuntimeError(grpc.StatusCode.UNIMPLEMENTED, message)


def out_of_range(message: str) -> P4RuntimeError:
    return P4RuntimeError(grpc.StatusCode.OUT_OF_RANGE, message)


def canonical(code: grpc.StatusCode) -> int:
    """The google.rpc.Code number of a grpc.StatusCode."""
    return code.value[0]


# gRPC carries the message in a trailer, which clients refuse past 16 KiB ("Stream removed"), and
# percent-encodes what is not printable ASCII: a compile error listing thousands of problems
# would reach the client as RESOURCE_EXHAUSTED with none of them.
MAX_DETAILS = 3000


def abort(context: grpc.ServicerContext, err: P4RuntimeError):
    """End the call with ``err`` (raises, as ``context.abort`` does); a message past
    MAX_DETAILS characters is cut there, saying how much was left out."""
    message = err.message
    if len(message) > MAX_DETAILS:
        message = f"{message[:MAX_DETAILS]}\n... ({len(message) - MAX_DETAILS} more characters left out)"
    context.abort(err.code, message)


def abort_write(context: grpc.ServicerContext, results: Sequence[P4RuntimeError | None]):
    """End a Write whose batch had failures: UNKNOWN at the top (as the spec asks for a batch
    with errors), one ``p4.v1.Error`` per update in order, OK for the updates that were applied.
    """
    status = status_pb2.Status(code=code_pb2.UNKNOWN, message="Write failure.")
    for err in results:
        detail = p4runtime_pb2.Error()
        if err is None:
            detail.canonical_code = code_pb2.OK
        else:
            detail.canonical_code = canonical(err.code)
            detail.message = err.message
        packed = any_pb2.Any()
        packed.Pack(detail)
        status.details.append(packed)
    context.set_trailing_metadata((("grpc-status-details-bin", status.SerializeToString()),))
    context.abort(grpc.StatusCode.UNKNOWN, status.message)
