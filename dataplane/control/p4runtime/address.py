"""Where a server listens: ``HOST:PORT`` checked before gRPC sees it, and a port in use named.

gRPC takes ``127.0.0.1:65536`` as port 0 (any free port) and ``65537`` as port 1, and a host
name that resolves to several addresses (``localhost``: 127.0.0.1 and ::1) is bound on those
that are free and quietly not on the others. So the port is range-checked here, and every
address the host resolves to is tried with a plain socket (SO_REUSEADDR, as gRPC binds, and
no SO_REUSEPORT: the server sets ``grpc.so_reuseport`` to 0) so that a port another server
holds is an error that says so.
"""
from __future__ import annotations

import errno
import ipaddress
import socket


def split_address(address: str, *, allow_any_port: bool = True) -> tuple[str, int]:
    """(host, port) of ``HOST:PORT`` or ``[V6]:PORT``; ValueError unless the port is 1..65535
    (0 too, "any free port", with ``allow_any_port``)."""
    host, sep, port_text = address.rpartition(":")
    if not sep or not host:
        raise ValueError(f"{address!r} is not HOST:PORT")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    try:
        port = int(port_text, 10)
    except ValueError:
        raise ValueError(f"{address!r}: the port {port_text!r} is not a number") from None
    low = 0 if allow_any_port else 1
    if not low <= port <= 65535:
        raise ValueError(f"{address!r}: the port must be {low}..65535, not {port}")
    return host, port


def join_address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or a name) is only reachable from this machine."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except OSError:
        return False
    return bool(infos) and all(ipaddress.ip_address(i[4][0].split("%")[0]).is_loopback for i in infos)


def check_free(host: str, port: int) -> None:
    """OSError naming the port if some address ``host`` resolves to already has it in use, or
    naming the address if it is not one of this machine's (port 0 checks only that)."""
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError as err:
        raise OSError(f"cannot resolve {host!r}: {err.strerror or err}") from None
    for family, kind, proto, _, sockaddr in infos:
        with socket.socket(family, kind, proto) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                s.bind(sockaddr)
            except OSError as err:
                if err.errno == errno.EADDRINUSE:
                    raise OSError(f"port {port} is already in use on {sockaddr[0]} (another server "
                                  f"listens there)") from None
                if err.errno == errno.EADDRNOTAVAIL:
                    raise OSError(f"{sockaddr[0]} is not an address of this machine") from None
                raise OSError(f"cannot listen on {join_address(sockaddr[0], port)}: "
                              f"{err.strerror or err}") from None
