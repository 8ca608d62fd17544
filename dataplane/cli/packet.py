"""``dataplane run-packet`` and ``dataplane test``: packets through one switch, from hex or a
capture (``dataplane.replay``), or as an STF test says (``dataplane.testing``)."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from dataplane.cli.errors import reported_errors
from dataplane.cli.options import SEED, OutputDir, Processes
from dataplane.cli.programs import load_switch as _load_switch
from dataplane.cli.programs import make_policy, resolve_program, warning_options
from dataplane.gc_pause import end_startup_pause
from dataplane.progress import for_terminal


@click.command("test")
@click.argument("program")
@click.argument("stf", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--seed", type=SEED, default=0, help="Seed of the switch's random source (0..2^64-1).")
@warning_options
@click.option("--engine", type=click.Choice(["auto", "batch", "packet"]), default="auto", show_default=True,
              help="auto: the batch (numpy) engine when it accepts the program, else per packet; "
                   "batch: fail if it does not; packet: the per-packet engine.")
@click.option("-v", "--verbose", is_flag=True, help="Say which engine ran and why.")
def test_command(program: str, stf: Path, seed: int, werror: bool, wno: tuple[str, ...], engine: str,
                 verbose: bool) -> None:
    """Run the STF packet test STF against PROGRAM, as p4c's BMv2 driver does; exit 1 on a mismatch."""
    from dataplane.testing.stf import load_stf
    from dataplane.testing.stf_runner import run_stf

    sw = _load_switch(program, None, make_policy(werror, wno), seed=seed)
    with reported_errors():
        result = run_stf(sw, load_stf(str(stf)), str(stf), engine=engine,
                         echo=click.echo if verbose else None)
    click.echo(f"{stf}: {result.report()}")
    sys.exit(0 if result.passed else 1)


@click.command("run-packet")
@click.argument("program")
@click.option("--entries", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Runtime JSON or simple_switch_CLI command file.")
@click.option("--port", type=click.IntRange(min=0), default=0, show_default=True, help="Ingress port.")
@click.option("--packet", "packet_hex", help="One packet as hex.")
@click.option("--pcap", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="Packets from a pcap.")
@click.option("--out", type=OutputDir(), help="Write one pcap per egress port here.")
@click.option("--trace", is_flag=True, help="Print each packet's path through the pipeline.")
@warning_options
@click.option("--engine", type=click.Choice(["auto", "batch", "packet"]), default="auto", show_default=True,
              help="auto: the batch (numpy) engine when it accepts the program, else per packet; "
                   "batch: fail if it does not; packet: the per-packet engine.")
@click.option("--jobs", type=Processes(), default=None,
              help="Processes that replay a capture to pcaps, on either engine (at most the CPUs; default: up to 2, as the "
                   "CPUs allow); the pcaps and counters are the same with any number. A program with state "
                   "that depends on packet order (registers, meters, random, ...) runs on one; -v says why.")
@click.option("-v", "--verbose", is_flag=True, help="Say which engine ran and why, and how many jobs.")
def run_packet(program: str, entries: Path | None, port: int, packet_hex: str | None, pcap: Path | None,
               out: Path | None, trace: bool, werror: bool, wno: tuple[str, ...], engine: str, verbose: bool,
               jobs: int | None) -> None:
    """Send packets through one switch running PROGRAM and show what comes out."""
    from dataplane.replay.run import run_packets

    if (packet_hex is None) == (pcap is None):
        raise click.UsageError("give exactly one of --packet HEX or --pcap FILE")
    if entries is None and not Path(program).is_file():
        # A built-in program comes with its control-plane config: use it unless told otherwise.
        default = resolve_program(program).with_suffix(".json")
        entries = default if default.is_file() else None
    sw = _load_switch(program, entries, make_policy(werror, wno))
    end_startup_pause()
    with reported_errors(), for_terminal() as line:
        run_packets(sw, port, packet_hex=packet_hex, pcap=pcap, out=out, trace=trace,
                    echo=lambda text: line.echo(text, err=False), engine=engine, verbose=verbose, jobs=jobs)
