"""``dataplane run``: the virtual fabric from the command line (``topo`` generates its topologies)."""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click

from dataplane.cli.errors import reported_errors
from dataplane.cli.grpc_options import CPU_PORTS, PORTS, server_options, tls_files
from dataplane.cli.options import SEED, Duration, OutputDir, OutputFile, Whole
from dataplane.cli.programs import check_topology_programs, make_policy, print_programs, programs_json
from dataplane.cli.telemetry import format_int_summary, int_collector_for, serve_gnmi
from dataplane.progress import for_terminal

DEFAULT_TOPOLOGY = "leaf-spine.yaml"


def _resolve_topology(name: str | None) -> Path:
    from dataplane.resources import data_dir

    if name is None:
        return data_dir("topologies") / DEFAULT_TOPOLOGY
    path = Path(name)
    if path.exists():
        return path
    for candidate in (data_dir("topologies") / name, data_dir("topologies") / f"{name}.yaml"):
        if candidate.is_file():
            return candidate
    raise click.BadParameter(f"no such file, and no built-in topology named {name!r}", param_hint="TOPOLOGY")


@click.command("run")
@click.argument("topology", required=False)
@click.option("--program", type=click.Path(exists=True, dir_okay=False, path_type=Path), multiple=True,
              help="P4 program for the switches whose topology names the same program (firewall.p4 for "
                   "build/firewall.json) and for those that name none (most switches of a tutorials "
                   "topology.json). Repeat it for several programs; one that runs on no switch is an error.")
@click.option("--duration", type=Duration(), default="10ms", show_default=True,
              help="Simulated time to run, with its unit: ns, us, ms or s (a bare number is an error).")
@click.option("--traffic", default="pingall", show_default=True,
              help="A traffic YAML file, or a built-in pattern: pingall (one ping at a time, as Mininet's; "
                   "the run lasts until it is done unless --duration is given), pingall-parallel (all at "
                   "once), incast, all-to-all.")
@click.option("--events", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A YAML list of link/node failures and recoveries.")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Seed of the random sources (link loss, ECMP hashing, RED, switches' random externs), 0..2^64-1; "
                   "the same seed gives the same run.")
@click.option("--out", type=OutputDir(),
              help="Write pcaps (one per port), metrics (JSON, CSV), PNG plots and report.json "
                   "(for `dataplane report`) here.")
@click.option("--report", type=OutputFile(),
              help="Write the run's HTML report here (one file that opens offline; see `dataplane report`).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON object.")
@click.option("--int", "int_collector", metavar="HOST",
              help="In-band telemetry: set INT roles on every switch running programs/int.p4 (sources and sinks "
                   "at the ports to hosts, every switch a transit hop) and collect their reports on HOST; the "
                   "summary, --json (\"int\") and --report show each flow's hops, latency and queue.")
@click.option("--serve", is_flag=True,
              help="Give every switch a P4Runtime server and run paced to the wall clock (see below).")
@click.option("--grpc-base-port", type=PORTS, default=50051, show_default=True,
              help="With --serve: the first switch's gRPC port; the next switches take the next ports "
                   "(the last must be at most 65535).")
@click.option("--grpc-host", default="127.0.0.1", show_default=True, help="With --serve: the address to listen on.")
@click.option("--gnmi-base-port", type=click.IntRange(0, 65535), default=None,
              help="With --serve: every switch also serves gNMI (OpenConfig counters, queues, PFC) on this port, "
                   "+1 each, on --grpc-host with the same TLS; 0: no gNMI. Default: the ports right after the "
                   "P4Runtime servers' (50055, ... for four switches from 50051; before them if those reach 65535).")
@click.option("--cpu-port", type=CPU_PORTS, default=None,
              help="With --serve: the port whose packets become packet-ins (and packet-outs arrive on), "
                   "1..510 as simple_switch_grpc's; default: each switch's cpu_port in the topology, if any.")
@click.option("--settle", type=Duration(allow_zero=True), default="1s", show_default=True,
              help="With --serve: how long no switch may be written before the traffic starts.")
@server_options("With --serve: ")
@click.option("--Werror", "werror", is_flag=True,
              help="Check the topology's programs first and stop if any has a warning (exit status 1).")
@click.option("--ranks", type=Whole(min=1), default=1, show_default=True,
              help="Simulate on N MPI ranks (runs mpiexec -n N; same results as one): at most the topology's "
                   "switches and the CPUs this process may run on. Needs MPI and mpi4py.")
@click.option("--oversubscribe", is_flag=True, help="Allow --ranks above the CPUs (the ranks take turns on them).")
@click.option("--realtime", is_flag=True,
              help="Pace simulated time to the wall clock; report the lag behind it and the packet rate.")
@click.option("--netns", is_flag=True,
              help="Make every host a Linux network namespace (implies --realtime; needs root): run your own "
                   "programs on them with `dataplane exec HOST -- CMD` or `dataplane console`. Without "
                   "--duration the run lasts until Ctrl-C.")
@click.option("--name", "run_name", help="With namespace hosts: the run's name (default: the topology's).")
@click.option("--console", "console", is_flag=True,
              help="With namespace hosts: open `dataplane console` on this terminal; leaving it ends the run.")
def run_command(topology: str | None, program: tuple[Path, ...], duration: int, traffic: str, events: Path | None,
                seed: int, out: Path | None, report: Path | None, as_json: bool, serve: bool, grpc_base_port: int, grpc_host: str,
                cpu_port: int | None, settle: int, werror: bool = False, ranks: int = 1, realtime: bool = False,
                netns: bool = False, run_name: str | None = None, console: bool = False, max_streams: int = 128,
                compile_timeout: float = 30.0, tls_cert: Path | None = None, tls_key: Path | None = None,
                tls_ca: Path | None = None, oversubscribe: bool = False, int_collector: str | None = None,
                gnmi_base_port: int | None = None) -> None:
    """Run TOPOLOGY (YAML or tutorials topology.json; a built-in leaf-spine if omitted) in simulated time.

    \b
    With --serve, controllers configure the switches over P4Runtime, as in the P4 tutorials:
    every switch gets its own server, in the order of the topology's switches, on ports
    50051, 50052, ... (--grpc-base-port) with device ids 0, 1, ...; each server starts with
    its switch's program and that program's P4Info, so a controller may push p4c's BMv2 JSON
    as the device config (with the program's P4Info) as well as this emulator's own. The
    network holds still at time 0 until a controller has written to a switch and no switch
    has been written or had its pipeline set for --settle; then the traffic starts and
    simulated time follows the wall clock for --duration. Send SIGUSR1 to start at once;
    SIGINT ends the run early. Packets sent to --cpu-port reach the controller as
    packet-ins; packet-outs enter on it. Without TLS (--tls-cert, --tls-key; --tls-ca for client
    certificates) the servers ask no client who it is: keep --grpc-host on loopback. Each
  switch also serves gNMI on --gnmi-base-port (after the P4Runtime ports): its OpenConfig interface,
  pause-frame and queue counters, Get and Subscribe, stamped with simulated time.

    With --realtime, simulated time follows the wall clock and the summary adds how far behind
    it the emulator fell (max and p99 lag) and the packet rate through the switches; a warning
    says when it falls behind by 1 ms. With --netns (or `netns: true` on a host), hosts are
    Linux network namespaces (root needed): run programs on them with `dataplane exec HOST --
    CMD` or `dataplane console` (or --console here); everything the run made is removed when
    it ends, and `dataplane cleanup` removes what a killed run left.

    The summary counts packets unless a column says bytes. Hosts: "sent" is what the host's
    apps sent, "delivered" how many of those reached their destination (a ping: its reply
    came back), "lost" the rest, "received" the IP packets that arrived at the host. Ports:
    "drops" are packets the egress queue tail-dropped (full buffer), "lost" packets lost on
    the wire (link down, random loss, corruption). Drops the P4 program made (mark_to_drop,
    no egress port) are listed per switch by reason.
    """
    from dataplane.net.apps.traffic import PATTERNS, Traffic
    from dataplane.net.capture import metrics, plots
    from dataplane.net.fabric.network import Network
    from dataplane.net.parallel import launch
    from dataplane.net.parallel import session as parallel
    from dataplane.net.topology.events import load_events
    from dataplane.net.topology.load import load_topology

    realtime = realtime or netns
    if not serve and (tls_cert or tls_key or tls_ca):
        raise click.UsageError("--tls-cert, --tls-key and --tls-ca go with --serve")
    tls = tls_files(tls_cert, tls_key, tls_ca) if serve else None
    with reported_errors():
        if int_collector is not None and (ranks > 1 or parallel.mpi_world_size() > 1):
            raise click.BadParameter("--int collects on one process", param_hint="'--ranks'")
        if (serve or realtime) and (ranks > 1 or parallel.mpi_world_size() > 1):
            raise click.BadParameter(f"--{'serve' if serve else 'realtime'} runs on one process", param_hint="'--ranks'")
        if serve and realtime and not netns:
            raise click.BadParameter("--serve already runs in real time", param_hint="'--realtime'")
        if traffic == "pingall" and (ranks > 1 or parallel.mpi_world_size() > 1):
            traffic = _parallel_pingall()
        if ranks > 1 and parallel.mpi_world_size() <= 1:
            _check_ranks(ranks, oversubscribe, topology, program)
        status = launch.relaunch(ranks, oversubscribe=oversubscribe)
    if status is not None:
        sys.exit(status)
    # No progress line when several ranks share the terminal.
    with reported_errors(), for_terminal(quiet=as_json or netns or console or parallel.mpi_world_size() > 1) as line:
        path = _resolve_topology(topology)
        line.stage(f"run {path.name}: building the network")
        until = duration
        spec = load_topology(path, program=program) if program else load_topology(path)
        if werror:
            check_topology_programs(spec, make_policy(True, ()))
        realtime_data = None
        if realtime or serve:       # served switches run in real time too, and may have namespace hosts
            until, traffic = _realtime_defaults(spec, netns, until, traffic)
        part = parallel.Session.start(spec)       # None on one process
        net = Network.from_spec(spec, seed=seed, sim=part.simulator(seed) if part else None,
                                netns_hosts=_netns_host if realtime or serve else None)
        if part:
            part.attach(net)
        collector = int_collector_for(net, int_collector) if int_collector is not None else None
        tr = Traffic(net)
        if traffic == "none":
            pass
        elif traffic in PATTERNS:
            tr.pattern(traffic, until)
        elif not Path(traffic).exists():
            raise click.BadParameter(f"{traffic!r} is neither a traffic file nor a built-in pattern "
                                     f"({', '.join(PATTERNS)})", param_hint="'--traffic'")
        else:
            tr.load(Path(traffic))
        if part is not None and tr.pingall is not None:
            raise click.BadParameter("an {app: pingall} waits for each ping before the next, which one process "
                                     "does; on several ranks give pingall-parallel", param_hint="'--traffic'")
        if events is not None:
            load_events(net, events)
        if out is not None:
            net.capture(out / "pcap")
        recorder = None
        if out is not None or report is not None:
            from dataplane.report.record import Recorder

            recorder = Recorder(net)   # counters over time and table hits, for the report
        if not as_json and parallel.on_root():
            print_programs(spec)
        started = time.perf_counter()
        open_ended = tr.pingall is not None and not _given("duration")    # runs until the pingall is done
        line.stage(f"run {spec.name}", total=None if open_ended else until, unit="ns")
        if serve:
            from dataplane.cli.netns import served_namespaces

            with served_namespaces(net, spec, until, run_name, as_json, console) as hosts:
                _run_served(net, until, line.sim_tick, grpc_host, grpc_base_port, cpu_port, settle,
                            {"max_streams": max_streams, "tls": tls}, compile_timeout,
                            hosts.attach if hosts is not None else None, gnmi_base_port)
            realtime_data = hosts.data() if hosts is not None else None
        elif realtime:
            from dataplane.cli.netns import run_realtime_cli

            realtime_data = run_realtime_cli(net, spec, until, run_name, as_json, line.sim_tick, console)
        else:
            net.run(until)
            if open_ended and not tr.pingall.done:
                tr.pingall.on_done = net.sim.stop      # Mininet's pingall returns when every ping has
                net.run(None)
                until = net.sim.now
        wall = time.perf_counter() - started
        if recorder is not None:
            recorder.stop()
        root = part.gather(net, tr.apps()) if part else True
        data = metrics.summary(net, tr.host_results()) if root else None
        if realtime_data is not None:
            data["realtime"] = realtime_data
        if data is not None:
            data["programs"] = programs_json(spec)
            if tr.pingall_json() is not None:
                data["pingall"] = tr.pingall_json()
            if collector is not None:
                data["int"] = collector.summary()
        net.close()
        if recorder is not None and root:
            report_data = _report_data(net, recorder, tr, data, spec.name, traffic, until, events, seed)
    if not root:
        return
    if out is not None:
        metrics.write_metrics(out, data)
        plots.plot_queues(net, out / "queues.png")
        plots.plot_queue_classes(net, out / "queue_classes.png")
        plots.plot_throughput(tr.throughput_series(), out / "throughput.png")
        if recorder is not None:
            from dataplane.report.collect import write_data

            with reported_errors():
                write_data(out, report_data)
    if report is not None:
        from dataplane.cli.report import write_page

        write_page(report_data, report)
    if as_json:
        click.echo(json.dumps(data, sort_keys=True))
    else:
        dpus = f"{_count(len(net.dpus), 'DPU')}, " if net.dpus else ""
        click.echo(f"topology {spec.name}: {_count(len(net.switches), 'switch')}, {dpus}"
                   f"{_count(len(net.hosts), 'host')}, {_count(len(net.links), 'link')}; traffic {traffic}; "
                   f"{wall:.2f} s wall clock")
        for row in tr.pingall_lines():
            click.echo(row)
        click.echo(metrics.format_table(data))
        if "int" in data:
            click.echo(format_int_summary(data["int"]))
        if realtime_data is not None:
            from dataplane.cli.netns import format_realtime

            click.echo(format_realtime(realtime_data))
        if out is not None:
            written = ["pcaps", "metrics"] + ["plots"] * any(out.glob("*.png")) + ["report.json"] * (recorder is not None)
            click.echo(f"{', '.join(written[:-1])} and {written[-1]} written to {out}")
        if report is not None:
            click.echo(f"report written to {report}")


def _check_ranks(ranks: int, oversubscribe: bool, topology: str | None, program: tuple[Path, ...]) -> None:
    """Before mpiexec starts: no more ranks than the topology has switches (and DPUs) to share
    out, a partition that exists, and no more than the CPUs unless ``--oversubscribe``."""
    from dataplane.net.parallel import launch
    from dataplane.net.parallel.partition import partition
    from dataplane.net.parallel.runtime import ParallelError
    from dataplane.net.topology.load import load_topology

    path = _resolve_topology(topology)
    spec = load_topology(path, program=program) if program else load_topology(path)
    nodes = len(spec.switches) + len(spec.dpus)
    if ranks > nodes:
        raise click.BadParameter(f"{ranks} ranks for {path.name}'s {nodes} switch{'es' if nodes != 1 else ''}"
                                 f"{' and DPUs' if spec.dpus else ''}: every rank needs one; use at most {nodes}",
                                 param_hint="'--ranks'")
    try:
        launch.check_ranks(ranks, oversubscribe)
    except ParallelError as err:
        raise click.BadParameter(str(err), param_hint="'--ranks'") from None
    partition(spec, ranks)      # a topology that cannot be split so is refused here, not on every rank


def _given(option: str) -> bool:
    """Whether the command line gave ``option`` (not its default)."""
    source = click.get_current_context().get_parameter_source(option)
    return source is not None and source is not click.core.ParameterSource.DEFAULT


def _parallel_pingall() -> str:
    """``pingall`` on several ranks: the sequential one hands each turn to the next host, which one
    process does, so the default traffic becomes pingall-parallel; asked for by name, it is an error."""
    if _given("traffic"):
        raise click.BadParameter("pingall waits for each ping before the next, which one process does; on "
                                 "several ranks give --traffic pingall-parallel", param_hint="'--traffic'")
    return "pingall-parallel"


def _netns_host(sim, spec):
    from dataplane.net.netns.host import NetnsHost

    return NetnsHost(sim, spec)


def _realtime_defaults(spec, netns: bool, until: int, traffic: str) -> tuple[int | None, str]:
    """--realtime's duration and traffic: with namespace hosts, until Ctrl-C unless --duration is
    given, and no built-in traffic (the hosts run the user's programs; the apps need simulated hosts)."""
    from dataplane.cli.netns import prepare_realtime

    if not prepare_realtime(spec, netns):
        return until, traffic
    explicit = _given("duration")
    if not _given("traffic"):
        traffic = "none"
    elif traffic != "none":
        raise click.BadParameter("built-in traffic runs on simulated hosts; namespace hosts run your own "
                                 "programs (dataplane exec HOST -- CMD): leave --traffic out or give 'none'",
                                 param_hint="'--traffic'")
    return (until if explicit else None), traffic


def _report_data(net, recorder, tr, data: dict, name: str, traffic: str, until: int, events: Path | None,
                 seed: int) -> dict:
    """The report's data for this run (``dataplane.report.collect``), from the same summary as --json."""
    from dataplane.report import collect

    fct, what = collect.traffic_completions(tr)
    run = collect.collect_run(net, recorder, f"{name}: {traffic}", hosts=data["hosts"],
                              flow_series=tr.throughput_series(), fct_ns=fct, fct_what=what)
    prov = collect.provenance(topology=str(net.spec.source or name), traffic=traffic, duration_ns=until,
                              events=str(events) if events else None, seed=seed)
    if "int" in data:
        run["int"] = data["int"]
    return collect.report_data("run", f"dataplane run: {name}", [run], prov)


def _count(n: int, noun: str) -> str:
    """``1 switch``, ``2 switches``."""
    if n == 1:
        return f"1 {noun}"
    return f"{n} {noun}es" if noun.endswith(("s", "sh", "ch", "x")) else f"{n} {noun}s"


def _run_served(net, until: int | None, progress, host: str, base_port: int, cpu_port: int | None, settle_ns: int,
                options: dict, compile_timeout: float, attach=None, gnmi_base_port: int | None = 0) -> None:
    """``run --serve``: P4Runtime servers on every switch, then the paced run (see run's help);
    ``options`` go to every server (``P4RuntimeServer``), which share one compiler. ``attach(live)``
    is called once the servers are up (namespace hosts: ``netns.ServedNamespaces``)."""
    import signal

    from dataplane.cli.grpc_options import warn_if_exposed
    from dataplane.net.devices.live import LiveNetwork, serve_network
    from dataplane.progress import echo as progress_echo

    try:
        from dataplane.control.p4runtime.compiler import BoundedCompiler
    except ImportError as err:     # grpcio and p4runtime, CPython only
        raise click.UsageError(f"--serve needs grpcio and p4runtime ({err}); they have no PyPy builds, "
                               "run it under CPython") from None
    switches = len(net.switches)
    if gnmi_base_port is None:       # right after the P4Runtime servers' ports, or before them at the top
        after = base_port + switches
        gnmi_base_port = after if after + switches - 1 <= 65535 else max(base_port - switches, 1)
    for first, hint in ((base_port, "'--grpc-base-port'"), (gnmi_base_port, "'--gnmi-base-port'")):
        if first and first + switches - 1 > 65535:
            raise click.BadParameter(f"{_count(switches, 'switch')} need ports {first}..{first + switches - 1}, "
                                     f"past 65535", param_hint=hint)
    compiler = BoundedCompiler(timeout=compile_timeout)
    try:
        live = LiveNetwork(net, cpu_port=cpu_port, settle_s=settle_ns / 1e9)
        servers = serve_network(live, host, base_port, compiler=compiler, **options)
    except (ValueError, OSError, RuntimeError) as err:
        compiler.close()
        raise click.UsageError(f"--serve: {err}") from None
    try:
        gnmi = serve_gnmi(live, host, gnmi_base_port, options.get("tls")) if gnmi_base_port else []
    except (ValueError, OSError, RuntimeError, ImportError) as err:
        for server in servers:
            server.stop()
        compiler.close()
        if isinstance(err, ImportError):
            err = f"{err}: gNMI's protos come with pygnmi (pip install pygnmi), or give --gnmi-base-port 0"
        raise click.UsageError(f"--serve: gNMI: {err}") from None
    warn_if_exposed(host, options.get("tls"))
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGUSR1, signal.SIGINT, signal.SIGTERM)}
    signal.signal(signal.SIGUSR1, lambda *_: live.start())
    signal.signal(signal.SIGINT, lambda *_: live.stop())
    signal.signal(signal.SIGTERM, lambda *_: live.stop())
    try:
        for node, server in zip(live.nodes, servers):
            progress_echo(f"{node.name}: P4Runtime on {host}:{server.port}, device id {node.device_id}")
        for node, server in zip(live.nodes, gnmi):
            progress_echo(f"{node.name}: gNMI on {host}:{server.port}")
        if attach is not None:
            attach(live)
        progress_echo("waiting for the controllers to configure the switches (SIGUSR1 starts now)")
        if live.run(until, on_progress=progress if until is not None else None) or until is None:
            return
        progress_echo("stopped before the end of --duration")
    finally:
        live.stop()            # nothing waits for the simulator any more
        for server in [*servers, *gnmi]:
            server.stop()
        compiler.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
