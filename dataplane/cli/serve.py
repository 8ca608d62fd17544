"""``dataplane serve``: one switch in real time behind a P4Runtime server.

With PROG the switch starts with that program (and ``--entries``) and its P4Info (from
``--p4info`` or generated); without, it waits for a controller's SetForwardingPipelineConfig.
SIGINT and SIGTERM stop it cleanly: streams closed, port released, exit status 0.
"""
from __future__ import annotations

import signal
import sys
import threading
from pathlib import Path

import click

from dataplane.cli.errors import reported_errors
from dataplane.cli.grpc_options import CPU_PORTS, DEVICE_IDS, GrpcAddress, server_options, tls_files, warn_if_exposed


def _generated_p4info(program):
    try:
        from dataplane.control.p4info import build_p4info
    except ImportError:
        raise click.UsageError("this installation cannot generate a P4Info; give one with --p4info FILE") from None
    return build_p4info(program)


@click.command("serve")
@click.argument("program", required=False)
@click.option("--entries", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Table entries to load at start (runtime JSON or simple_switch_CLI commands).")
@click.option("--grpc-addr", type=GrpcAddress(), default="127.0.0.1:9559", show_default=True,
              help="Address to serve P4Runtime on (port 0: any free port, printed at start).")
@click.option("--device-id", type=DEVICE_IDS, default=1, show_default=True,
              help="The P4Runtime device id (0..2^64-1).")
@click.option("--cpu-port", type=CPU_PORTS, default=None,
              help="The port whose packets are the controller's (packet-in/packet-out): 1..510, as "
                   "simple_switch_grpc's (v1model's ports are 9 bits, 511 drops).")
@click.option("--p4info", "p4info_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="The P4Info of PROG (default: generated from PROG).")
@click.option("--ptf-socket", metavar="ADDR",
              help="Also serve PTF's nn platform here (ipc:///path or tcp://host:port): run PTF with "
                   "--platform nn --device-socket 0-{0-7}@ADDR; no veths, no root.")
@server_options()
def serve_command(program: str | None, entries: Path | None, grpc_addr: str, device_id: int,
                  cpu_port: int | None, p4info_path: Path | None, ptf_socket: str | None, max_streams: int,
                  compile_timeout: float, tls_cert: Path | None, tls_key: Path | None, tls_ca: Path | None) -> None:
    """Run PROG as one switch behind a P4Runtime server (or wait for a controller to set the pipeline).

    Without TLS the server asks no client who it is: it listens on 127.0.0.1 unless told
    otherwise, and warns when told otherwise. --tls-cert/--tls-key serve over TLS; --tls-ca
    also requires every client to present a certificate that CA signed."""
    try:
        from dataplane.control.p4runtime.server import P4RuntimeServer
    except ImportError as err:
        raise click.UsageError(f"the P4Runtime server needs grpcio and p4runtime ({err}); "
                               "they have no PyPy builds, run it under CPython") from None
    from dataplane.control.live import LiveSwitch

    tls = tls_files(tls_cert, tls_key, tls_ca)

    live = LiveSwitch(None, device_id=device_id, cpu_port=cpu_port)
    p4info = device_config = None
    name = "no program (waiting for SetForwardingPipelineConfig)"
    if program is not None:
        from dataplane.cli.programs import load_switch, resolve_program
        from dataplane.control.device_config import make_device_config

        path = resolve_program(program)
        live.replace(load_switch(program, entries))
        with reported_errors():
            device_config = make_device_config(path, arch=getattr(live.switch.program, "architecture", "v1model"))
            if p4info_path:
                from dataplane.control.p4info import read_p4info

                p4info = read_p4info(p4info_path)   # P4InfoError is a DataplaneError: reported, exit 1
            else:
                p4info = _generated_p4info(live.switch.program)
        name = str(path)
    elif entries is not None or p4info_path is not None:
        raise click.UsageError("--entries and --p4info go with a PROGRAM")
    from dataplane.control.p4runtime.status import P4RuntimeError

    # Ctrl-C and SIGTERM stop the server cleanly from the moment it listens: a signal that came
    # between the first connection and these handlers was a KeyboardInterrupt, exit status 1.
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    warn_if_exposed(grpc_addr.rpartition(":")[0].strip("[]"), tls)
    try:
        server = P4RuntimeServer(live, grpc_addr, p4info=p4info, device_config=device_config,
                                 max_streams=max_streams, compile_timeout=compile_timeout, tls=tls)
        port = server.start()
    except P4RuntimeError as err:
        raise click.UsageError(f"the P4Info does not fit the program: {err.message}") from None
    except (OSError, RuntimeError, ValueError) as err:
        raise click.UsageError(f"cannot serve on {grpc_addr}: {err}") from None
    ptf = None
    if ptf_socket is not None:
        from dataplane.control.ptf_socket import PtfSocket

        try:
            ptf = PtfSocket(live, ptf_socket).start()
        except ValueError as err:
            server.stop()
            raise click.UsageError(str(err)) from None
    from dataplane.control.p4runtime.address import join_address

    click.echo(f"serving {name} as device {device_id} on {join_address(server.host, port)} "
               f"(P4Runtime{', TLS' if tls else ''})", nl=True)
    if ptf is not None:
        click.echo(f"PTF nn platform on {ptf_socket}")
    sys.stdout.flush()
    while not stop.wait(0.5):
        pass
    if ptf is not None:
        ptf.close()
    server.stop()
    click.echo("stopped")
