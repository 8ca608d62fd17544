"""The gNMI gRPC server of one switch, bounded as the P4Runtime server is.

``GnmiServer(source, address).start()`` serves ``GnmiService(source)``; ``stop()`` ends every
subscription and releases the port. The thread pool has ``WORKERS`` threads for the unary
calls and one for each of ``max_streams`` subscriptions (a POLL subscription's reader of polls
is a thread of its own); a subscription past ``max_streams`` is refused with RESOURCE_EXHAUSTED rather than
left waiting for a thread. Messages are at most ``MAX_MESSAGE`` bytes either way; TLS (and
mutual TLS) takes the P4Runtime server's files (``dataplane.control.p4runtime.tls``).
"""
from __future__ import annotations

from typing import Any

import grpc
from pygnmi.spec.v080 import gnmi_pb2_grpc

from dataplane.control.gnmi.service import GnmiService
from dataplane.control.p4runtime.address import join_address, split_address
from dataplane.control.p4runtime.listen import start_server
from dataplane.control.p4runtime.tls import TlsFiles

__all__ = ["GnmiServer", "DEFAULT_MAX_STREAMS", "DEFAULT_PORT"]

DEFAULT_PORT = 9339           # IANA's port for gNMI
WORKERS = 8                   # threads for Capabilities and Get, whatever the subscriptions do
DEFAULT_MAX_STREAMS = 32      # Subscribe calls open at once
MAX_MESSAGE = 4 << 20         # bytes of one message either way


class GnmiServer:
    """gNMI for ``source`` (a ``CounterSource``) on ``address``; port 0 picks one (``port``).
    ValueError for a bad address or limit; ``start`` raises OSError if it cannot listen."""

    def __init__(self, source: Any, address: str = f"127.0.0.1:{DEFAULT_PORT}", *,
                 max_streams: int = DEFAULT_MAX_STREAMS, tls: TlsFiles | None = None):
        self.host, port = split_address(address)
        self.address = join_address(self.host, port)
        if max_streams < 1:
            raise ValueError(f"max_streams must be at least 1, not {max_streams}")
        self.max_streams = max_streams
        self.tls = tls
        self.service = GnmiService(source, max_streams)
        self.port: int | None = None
        self._server: grpc.Server | None = None

    def start(self) -> int:
        # a few threads more for the subscriptions refused past the limit (each holds one to be told so)
        server, port = start_server(self.address, self.host, self.tls, WORKERS + self.max_streams + 4, MAX_MESSAGE,
                                    "gnmi", lambda s: gnmi_pb2_grpc.add_gNMIServicer_to_server(self.service, s))
        self._server, self.port = server, port
        return port

    def stop(self, grace: float = 0.5) -> None:
        """End every subscription (within a wake of theirs, a STREAM after its last changes)
        and stop serving."""
        if self._server is None:
            return
        self.service.stopping.set()
        self._server.stop(grace).wait()
        self._server = None

    def __enter__(self) -> "GnmiServer":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
