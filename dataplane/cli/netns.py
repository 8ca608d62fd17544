"""``dataplane exec``, ``console`` and ``cleanup``: commands on the namespace hosts of a
real-time run (``dataplane run TOPO --realtime --netns``), and the real-time part of ``run``."""
from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import click

from dataplane.cli.errors import reported_errors
from dataplane.cli.options import FiniteFloat

_RUN_OPTION = click.option("--run", "run_name", metavar="NAME",
                           help="The run's name (run --name; default: the only run that is up).")
_STATE_OPTION = click.option("--state", "state_file", type=click.Path(dir_okay=False, path_type=Path),
                             help="The run's state file (/run/dataplane/NAME.json).")


@click.command("exec", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@_RUN_OPTION
@_STATE_OPTION
@click.argument("node")
@click.argument("command", nargs=-1, type=click.UNPROCESSED, required=True)
def exec_command(run_name: str | None, state_file: Path | None, node: str, command: tuple[str, ...]) -> None:
    """Run COMMAND inside NODE's network namespace while a real-time run is up.

    \b
        dataplane exec h1 -- ping -c 3 10.0.2.2
        dataplane exec h2 -- python receive.py
    It runs as `ip netns exec NAMESPACE COMMAND` (the namespace is dataplane-RUN-NODE), in this
    directory and environment; its exit status is the command's.
    """
    from dataplane.net.netns.namespaces import check_privileges
    from dataplane.net.netns.state import find_run, host_netns

    with reported_errors():
        check_privileges()
        netns = host_netns(find_run(run_name, state_file), node)
    args = list(command[1:] if command and command[0] == "--" else command)
    if not args:
        raise click.UsageError("give the command to run after the node: dataplane exec h1 -- ping 10.0.2.2")
    sys.stdout.flush()
    try:
        os.execvp("ip", ["ip", "netns", "exec", netns, *args])
    except OSError as err:
        click.echo(f"error: cannot run ip netns exec: {err}", err=True)
        sys.exit(1)


@click.command("console")
@_RUN_OPTION
@_STATE_OPTION
@click.option("--timeout", type=FiniteFloat(0.1, 86400), default=60.0, show_default=True,
              help="Seconds a foreground command may run when the console reads a pipe or a file "
                   "(0.1 to a day; on a terminal, Ctrl-C stops it).")
def console_command(run_name: str | None, state_file: Path | None, timeout: float) -> None:
    """A console with Mininet's habits on a running real-time run: `h1 ping -c 3 h2`, `pingall`,
    `h2 iperf3 -s &`, `jobs`, `log h2`, `nodes`, `links`, `dump`, `exit`.

    \b
    A command runs on a terminal of its own: its output shows as it comes and what you type
    is its input (h1 python3 calc.py); Ctrl-C stops it. A background command's output goes
    to a log file per host (RUN.logs/HOST.log beside the run's state file); it is shown
    before that host's next command, as on Mininet, or with `log HOST`. Reads commands from
    stdin when it is not a terminal (then commands get no input)."""
    from dataplane.net.netns.console import Console
    from dataplane.net.netns.namespaces import check_privileges
    from dataplane.net.netns.state import find_run

    with reported_errors():
        check_privileges()
        state = find_run(run_name, state_file)
    Console(state, timeout_s=timeout).cmdloop()


@click.command("cleanup")
@click.option("--all", "stop_live", is_flag=True, help="Also stop runs that are up (SIGTERM) and remove theirs.")
def cleanup_command(stop_live: bool) -> None:
    """Remove what real-time runs left behind (like `mn -c`): the namespaces of runs whose process
    has ended, the processes in them, their state files and the console's background output
    (RUN.logs), and any other namespace named dataplane-* that no live run owns and whose TAP
    device is closed (a live run holds its open). TAP devices go with their namespaces."""
    import shutil
    import signal
    import time

    from dataplane.net.netns import namespaces
    from dataplane.net.netns.state import is_live, remove_run, runs, state_dir

    with reported_errors():
        namespaces.check_privileges()
        owned: set[str] = set()
        removed: list[str] = []
        for state in runs():
            if is_live(state):
                if not stop_live:
                    owned |= {h["netns"] for h in state["hosts"].values()}
                    click.echo(f"run {state['name']} is up (process {state['pid']}): left alone (--all stops it)")
                    continue
                os.kill(int(state["pid"]), signal.SIGTERM)
                deadline = time.monotonic() + 5
                while is_live(state) and time.monotonic() < deadline:
                    time.sleep(0.05)
            if Path(state["_path"]).exists():
                removed += remove_run(state)
        live_logs = {Path(s["_path"]).with_suffix(".logs") for s in runs() if is_live(s)}
        for logs in state_dir().glob("*.logs"):
            if logs.is_dir() and logs not in live_logs:    # the console's background output of ended runs
                shutil.rmtree(logs, ignore_errors=True)
        for name in namespaces.leftovers():
            if name in owned:
                continue
            if namespaces.in_use(name):     # a run with its state elsewhere (DATAPLANE_STATE_DIR)
                click.echo(f"{name}: its TAP device is open, a run still uses it: left alone")
                continue
            namespaces.remove(name)
            removed.append(name)
    click.echo(f"removed {len(removed)} namespace{'s' if len(removed) != 1 else ''}"
               + (f": {', '.join(removed)}" if removed else ""))


def prepare_realtime(spec: Any, netns: bool) -> bool:
    """Mark every host of ``spec`` a namespace host with --netns; check the privileges the
    namespace hosts need (before the slow compile). True if the run has namespace hosts."""
    from dataplane.net.netns.namespaces import check_privileges

    if netns:
        for host in spec.hosts.values():
            if host.xdp is not None:
                raise click.BadParameter(f"host {host.name} runs an XDP program on its NIC in the emulator; "
                                         "it cannot also be a namespace host", param_hint="'--netns'")
            host.netns = True
    has = any(h.netns for h in spec.hosts.values())
    if has:
        check_privileges()
    return has


def _announce(hosts: Any, name: str, until: int | None, served: bool = False) -> None:
    """The namespace lines a real-time run prints once its hosts are up."""
    from dataplane.progress import echo as progress_echo

    if not hosts.hosts:
        return
    for h in hosts.hosts:
        progress_echo(f"{h.name}: namespace {h.netns}, eth0 {hosts.state()['hosts'][h.name]['ip']}")
    how = "Ctrl-C ends it" if until is None else f"for {until / 1e9:g} s, Ctrl-C ends it sooner"
    start = ", from when the controllers have configured the switches" if served else ""
    progress_echo(f"run {name} is up in real time{start} ({how}); on its hosts: dataplane exec HOST -- COMMAND, "
                  "or dataplane console")


def _console_thread(hosts: Any, stop: Any) -> None:
    """``--console``: the console on this terminal; leaving it ends the run (``stop()``), as leaving
    Mininet's CLI does."""
    import threading

    from dataplane.net.netns.console import Console

    if not hosts.hosts:
        raise click.BadParameter("the console runs commands on namespace hosts; this run has none "
                                 "(add --netns)", param_hint="'--console'")
    state = hosts.state()
    state["_path"] = str(hosts.path)

    def console_loop() -> None:
        try:
            Console(state).cmdloop()
        finally:
            stop()

    threading.Thread(target=console_loop, name="console", daemon=True).start()


def _late(net: Any) -> Any:
    def late(lag_ns: int, sim_ns: int) -> None:
        counts = {name: node.packets_in for name, node in net.switches.items()}
        busiest = f" (busiest switch: {max(counts, key=counts.get)})" if counts and max(counts.values()) else ""
        click.echo(f"warning: real time: {lag_ns / 1e6:.1f} ms behind the wall clock at t={sim_ns / 1e9:.3f} s: "
                   f"the switches and links cannot keep up with this load{busiest}; delays and rates are off "
                   "by that much", err=True)
    return late


def _realtime_data(net: Any, report: Any, name: str, reached: bool) -> dict[str, Any]:
    from dataplane.net.netns.host import NetnsHost

    if report.p99_lag_ns > 1_000_000:
        click.echo(f"warning: real time: the run fell behind the wall clock (p99 {report.p99_lag_ns / 1e6:.1f} ms, "
                   f"max {report.max_lag_ns / 1e6:.1f} ms) at {report.packet_rate:.0f} packets/s through the "
                   "switches; offer less traffic, or run under PyPy", err=True)
    data = report.as_dict()
    data["run"] = name
    data["reached_end"] = reached
    data["netns_hosts"] = {h.name: h.summary() for h in net.hosts.values() if isinstance(h, NetnsHost)}
    return data


def run_realtime_cli(net: Any, spec: Any, until: int | None, run_name: str | None, as_json: bool,
                     progress: Any, console: bool = False) -> dict[str, Any]:
    """The paced run of ``dataplane run --realtime``; returns the figures for the summary."""
    import threading

    from dataplane.net.netns.namespaces import run_name as clean_name
    from dataplane.net.netns.realtime import NamespaceHosts, run_realtime

    name = clean_name(run_name or spec.name)
    with NamespaceHosts(net, name, str(spec.source or spec.name)) as hosts:
        if not as_json:
            _announce(hosts, name, until)
        sys.stdout.flush()
        stop = threading.Event()
        if console:
            _console_thread(hosts, stop.set)
        reached, report = run_realtime(net, until, stop=stop, on_late=_late(net),
                                       on_progress=progress if until is not None and not console else None)
    return _realtime_data(net, report, name, reached)


class ServedNamespaces:
    """The namespace hosts of ``run --serve --netns``: made before the servers start, their TAP
    devices read by the served network's paced run, removed when the run ends (``served_namespaces``)."""

    def __init__(self, net: Any, hosts: Any, name: str, until: int | None, as_json: bool, console: bool):
        self.net, self.hosts, self.name = net, hosts, name
        self.until, self.as_json, self.console = until, as_json, console
        self.live: Any = None

    def attach(self, live: Any) -> None:
        """Give ``live`` (a LiveNetwork) the TAP reader; say the hosts are up; open the console."""
        from dataplane.net.netns.realtime import TapReader

        self.live = live
        reader = TapReader(self.net, lambda: live.pacer.elapsed_ns() if live.pacer is not None else 0,
                           lock=live.lock)
        live.idle = reader.wait
        if not self.as_json:
            _announce(self.hosts, self.name, self.until, served=True)
        sys.stdout.flush()
        if self.console:
            _console_thread(self.hosts, live.stop)

    def data(self) -> dict[str, Any] | None:
        """The real-time figures for the summary, once the run is over (None if it never started)."""
        pacer = self.live.pacer if self.live is not None else None
        if pacer is None:
            return None
        reached = self.until is not None and self.net.sim.now >= self.until
        return _realtime_data(self.net, pacer.report(), self.name, reached)


@contextmanager
def served_namespaces(net: Any, spec: Any, until: int | None, run_name: str | None, as_json: bool,
                      console: bool) -> Iterator[ServedNamespaces | None]:
    """The namespace hosts of ``run --serve`` (``--netns`` or ``netns: true`` hosts), up for the
    block; None when the run has none (then ``--console`` is an error)."""
    from dataplane.net.netns.host import NetnsHost
    from dataplane.net.netns.namespaces import run_name as clean_name
    from dataplane.net.netns.realtime import NamespaceHosts

    if not any(isinstance(h, NetnsHost) for h in net.hosts.values()):
        if console:
            raise click.BadParameter("the console runs commands on namespace hosts; this run has none "
                                     "(add --netns)", param_hint="'--console'")
        yield None
        return
    name = clean_name(run_name or spec.name)
    with NamespaceHosts(net, name, str(spec.source or spec.name)) as hosts:
        yield ServedNamespaces(net, hosts, name, until, as_json, console)


def format_realtime(data: dict[str, Any]) -> str:
    """The real-time lines of ``run``'s summary."""
    busiest = f", busiest switch {data['busiest_switch']}" if data["busiest_switch"] else ""
    return (f"real time: {data['wall_s']:.2f} s wall clock, lag behind it max {data['max_lag_ns'] / 1e6:.3f} ms, "
            f"p99 {data['p99_lag_ns'] / 1e6:.3f} ms over {data['busy_steps']} busy steps; "
            f"{data['packets']} packets through the switches ({data['packet_rate_pps']:.0f} packets/s{busiest})")
