"""The options a P4Runtime server takes on the command line (``serve`` and ``run --serve``),
checked by click before any server starts: addresses and ports, device ids, CPU ports, the
stream and compile limits, TLS.

Ranges: a port is 1..65535 (0, "any free port", where a single server may take one); a
P4Runtime device id is a uint64; a CPU port is 1..510, as simple_switch_grpc takes it: 0 "is not
a valid value" there, v1model's ports are 9 bits wide, and 511 is its drop port.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import click

MAX_DEVICE_ID = (1 << 64) - 1
CPU_PORTS = click.IntRange(1, 510)
DEVICE_IDS = click.IntRange(0, MAX_DEVICE_ID)
PORTS = click.IntRange(1, 65535)


class GrpcAddress(click.ParamType):
    """``HOST:PORT`` (``[V6]:PORT``) with the port 0..65535 (0: any free port)."""

    name = "HOST:PORT"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        from dataplane.control.p4runtime.address import join_address, split_address

        try:
            host, port = split_address(str(value))
        except ValueError as err:
            self.fail(str(err), param, ctx)
        return join_address(host, port)


def server_options(prefix: str = "") -> Callable[[Callable], Callable]:
    """The stream, compile and TLS options, for ``serve`` and ``run --serve`` (``prefix`` begins
    each help text: "With --serve: ")."""
    def add(f: Callable) -> Callable:
        options = [
            click.option("--max-streams", type=click.IntRange(1, 4096), default=128, show_default=True,
                         help=f"{prefix}StreamChannels a server keeps open at once; more are refused "
                              f"(RESOURCE_EXHAUSTED)."),
            click.option("--compile-timeout", type=click.FloatRange(0, 3600, min_open=True), default=30.0,
                         show_default=True, metavar="SECONDS",
                         help=f"{prefix}How long a pushed device config may compile before the compile is "
                              f"stopped (RESOURCE_EXHAUSTED)."),
            click.option("--tls-cert", type=click.Path(exists=True, dir_okay=False, path_type=Path),
                         help=f"{prefix}Serve over TLS with this PEM certificate (chain); needs --tls-key."),
            click.option("--tls-key", type=click.Path(exists=True, dir_okay=False, path_type=Path),
                         help=f"{prefix}The PEM private key of --tls-cert."),
            click.option("--tls-ca", type=click.Path(exists=True, dir_okay=False, path_type=Path),
                         help=f"{prefix}Mutual TLS: clients must present a certificate signed by this PEM CA."),
        ]
        for option in reversed(options):
            f = option(f)
        return f
    return add


def tls_files(cert: Path | None, key: Path | None, ca: Path | None) -> Any:
    """The ``TlsFiles`` of the TLS options (None without them); UsageError for an incomplete or
    unusable set."""
    if cert is None and key is None:
        if ca is not None:
            raise click.UsageError("--tls-ca needs --tls-cert and --tls-key (the server's own certificate)")
        return None
    if cert is None or key is None:
        raise click.UsageError("--tls-cert and --tls-key go together")
    from dataplane.control.p4runtime.tls import TlsFiles

    files = TlsFiles(cert, key, ca)
    try:
        files.check()
    except ValueError as err:
        raise click.UsageError(str(err)) from None
    return files


def warn_if_exposed(host: str, tls: Any) -> None:
    """The warning for a server that anyone who reaches ``host`` may drive."""
    from dataplane.control.p4runtime.address import is_loopback

    if tls is None and not is_loopback(host):
        click.echo(f"warning: P4Runtime on {host} without TLS: anyone who can reach this address can set "
                   f"the pipeline and write the tables (give --tls-cert/--tls-key, and --tls-ca to require "
                   f"client certificates, or listen on 127.0.0.1)", err=True)
