"""``dataplane run TOPO --realtime``: the network paced to the wall clock, namespace hosts joined.

``NamespaceHosts`` makes the run's namespaces and TAP devices (``namespaces``, ``tap``),
writes the state file (``state``) and starts the guard (``guard``) before anything else, and
removes it all on the way out, whatever the way out is: the end of the run, Ctrl-C, SIGTERM,
an exception; on SIGKILL the guard does it. ``run_realtime`` paces the simulator
(``dataplane.net.core.pacing``) and, while it waits for the next event, waits on the TAP
devices too (``TapReader``, which ``run --serve`` gives its paced run as well): a frame from a
namespace enters the network at the simulated time of the wall clock when it was read.

Nothing touches the machine's own namespace: the TAP devices are made inside the hosts'
namespaces, no address or route is added outside them, and no real interface is used.
"""
from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
from typing import Any, Callable

from dataplane.net.core.pacing import PaceReport, WallClockPacer
from dataplane.net.netns import namespaces, tap
from dataplane.net.netns.host import NetnsHost
from dataplane.net.netns.namespaces import NetnsError
from dataplane.net.netns.state import is_live, read_state, remove_run, state_path, write_state
from dataplane.net.topology.addresses import format_ipv4, format_mac


def _host_link(net: Any, host: NetnsHost):
    port = host.ports.get(0)
    return port.link if port is not None else None


class NamespaceHosts:
    """The namespaces of one run, as a context manager (made on entry, removed on exit)."""

    def __init__(self, net: Any, run: str, topology: str = ""):
        self.net = net
        self.run = run
        self.topology = topology
        self.hosts = [h for h in net.hosts.values() if isinstance(h, NetnsHost)]
        self.path = state_path(run)
        self._guard: subprocess.Popen | None = None

    def state(self) -> dict[str, Any]:
        hosts = {h.name: {"netns": namespaces.netns_name(self.run, h.name), "ip": format_ipv4(h.ip),
                          "prefix_len": h.prefix_len, "mac": format_mac(h.mac), "iface": namespaces.IFACE}
                 for h in self.hosts}
        links = [{"a": link.a.name, "b": link.b.name, "bandwidth_bps": link.rate_bps,
                  "latency_ns": link.latency_ns, "loss": link.loss} for link in self.net.links]
        return {"name": self.run, "pid": os.getpid(), "topology": self.topology, "hosts": hosts,
                "switches": list(self.net.switches), "sim_hosts": [n for n in self.net.hosts if n not in hosts],
                "links": links, "started": time.time()}

    def __enter__(self) -> "NamespaceHosts":
        if self.path.exists():
            old = read_state(self.path)
            if is_live(old):
                raise NetnsError(f"a run named {self.run} is up already (process {old['pid']}); "
                                 "give this one another --name")
            remove_run(old)                       # a dead run's leftovers
        # The console's background output of an earlier run of this name (kept after it ended)
        shutil.rmtree(self.path.with_suffix(".logs"), ignore_errors=True)
        state = self.state()
        write_state(self.path, state)             # first: the guard and cleanup know what to remove
        self._guard = subprocess.Popen([sys.executable, "-m", "dataplane.net.netns.guard", str(self.path)],
                                       stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            for host in self.hosts:
                self._make(host, state["hosts"][host.name]["netns"])
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _make(self, host: NetnsHost, name: str) -> None:
        namespaces.add(name)
        host.netns = name
        try:
            with tap.inside(str(namespaces.NETNS_DIR / name)):
                namespaces.disable_ipv6()
                host.fd = tap.open_tap(namespaces.IFACE)
        except OSError as err:
            raise NetnsError(f"{host.name}: cannot make its TAP device in namespace {name}: {err}") from None
        link = _host_link(self.net, host)
        mtu = link.mtu if link is not None else 1500
        namespaces.configure(name, host.mac, host.ip, host.prefix_len, mtu, host.gateway, host.spec.static_arp)

    def __exit__(self, *exc: Any) -> None:
        for host in self.hosts:
            if host.fd is not None:
                os.close(host.fd)
                host.fd = None
        try:
            remove_run(read_state(self.path)) if self.path.exists() else None
        finally:
            if self._guard is not None:
                self._guard.stdin.close()          # the guard finds no state file and ends
                try:
                    self._guard.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self._guard.kill()
                self._guard = None


class TapReader:
    """Frames from the namespace hosts' TAP devices into the network, read while the pacer waits.

    ``wait(seconds)`` is the pacer's wait: it returns when a TAP device has frames or after
    ``seconds``, and schedules each frame read for its host at the simulated time of the wall
    clock then (``elapsed_ns()``: the pacer's). ``lock``: taken around the scheduling when other
    threads share the simulator (``run --serve``: the controllers' calls)."""

    def __init__(self, net: Any, elapsed_ns: Callable[[], int], lock: Any = None,
                 stop: threading.Event | None = None):
        self.sim = net.sim
        self.hosts = {h.fd: h for h in net.hosts.values() if isinstance(h, NetnsHost) and h.fd is not None}
        self.elapsed_ns = elapsed_ns
        self.lock = lock
        self.stop = stop or threading.Event()

    def wait(self, seconds: float) -> None:
        if not self.hosts:
            self.stop.wait(seconds)
            return
        try:
            ready, _, _ = select.select(list(self.hosts), [], [], seconds)
        except InterruptedError:
            return
        if not ready:
            return
        frames = [(self.hosts[fd], frame) for fd in ready for frame in tap.read_frames(fd)]
        if self.lock is not None:
            with self.lock:
                self._schedule(frames)
        else:
            self._schedule(frames)

    def _schedule(self, frames: list) -> None:
        sim = self.sim
        when = max(sim.now, self.elapsed_ns())
        for host, frame in frames:
            sim.schedule_for(host.actor, when - sim.now, host.send, frame)


def run_realtime(net: Any, until_ns: int | None, *, stop: threading.Event | None = None,
                 on_late: Callable[[int, int], None] | None = None, warn_lag_ns: int = 1_000_000,
                 on_progress: Callable[[int], None] | None = None) -> tuple[bool, PaceReport]:
    """Run ``net`` paced to the wall clock until ``until_ns`` (None: until ``stop`` is set), carrying
    the frames of its namespace hosts (their TAP devices must be open). SIGINT and SIGTERM set
    ``stop``. Returns (reached the end, the pacer's report)."""
    stop = stop or threading.Event()
    pacer = WallClockPacer(net, net.run, warn_lag_ns=warn_lag_ns, on_late=on_late)
    wait = TapReader(net, pacer.elapsed_ns, stop=stop).wait
    previous = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            previous[sig] = signal.signal(sig, lambda *_: stop.set())
    try:
        reached = pacer.run(until_ns, wait, stop.is_set, on_progress)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return reached, pacer.report()
