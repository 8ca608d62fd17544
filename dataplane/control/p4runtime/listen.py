"""A gRPC server started the way both of this package's servers start (P4Runtime's and gNMI's).

Its thread pool is fixed (``threads``), so a client cannot grow it; its messages are bounded
(``max_message`` bytes either way); ``grpc.so_reuseport`` is off, so a second server cannot
share a port another holds (``address.check_free`` names that port first); TLS when ``tls``
has files. A failed bind is an OSError that names the address.
"""
from __future__ import annotations

from concurrent import futures
from typing import Callable

import grpc

from dataplane.control.p4runtime.address import check_free, split_address
from dataplane.control.p4runtime.tls import TlsFiles


def start_server(address: str, host: str, tls: TlsFiles | None, threads: int, max_message: int,
                 thread_name: str, add_servicers: Callable[[grpc.Server], None]) -> tuple[grpc.Server, int]:
    """Listen on ``address`` (``host`` is its host part) and start serving; the started server and
    the port it listens on. ValueError for a bad TLS file, OSError when it cannot listen."""
    credentials = tls.credentials() if tls is not None else None
    check_free(host, split_address(address)[1])
    pool = futures.ThreadPoolExecutor(max_workers=threads, thread_name_prefix=thread_name)
    server = grpc.server(pool, options=[("grpc.max_receive_message_length", max_message),
                                        ("grpc.max_send_message_length", max_message),
                                        ("grpc.so_reuseport", 0)])
    add_servicers(server)
    try:
        if credentials is not None:
            port = server.add_secure_port(address, credentials)
        else:
            port = server.add_insecure_port(address)
    except RuntimeError:
        port = 0
    if port == 0:
        raise OSError(f"cannot listen on {address}")
    server.start()
    return server, port


__all__ = ["start_server"]
