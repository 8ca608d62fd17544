"""A simulated network under real controllers: its switches as live switches, its clock paced
to the wall clock (``dataplane run TOPO --serve``).

Each switch of the network is offered through ``LiveNode``, which has LiveSwitch's interface
(``lock``, ``switch``, ``replace``, ``inject``, ``listen``, ``now_us``, ``cpu_port``,
``device_id``), so the P4Runtime server serves it as it serves a single switch. ``LiveNetwork`` runs the simulator:

* every switch runs its topology program from the start, and its server starts with that
  pipeline (as BMv2 started with ``-j`` and its P4Info), so a controller may push BMv2 JSON in
  place of it (``foreign_config``) and a switch no controller touches still forwards;
* until the controllers have configured the switches, the network holds still at time 0 (no
  event runs, so no traffic is sent); what controllers send meanwhile (packet-outs) waits
  for the start;
* it starts when a controller has written to some switch (a Write) and no switch has been
  written or had its pipeline set for ``settle_s`` seconds; or at once when ``start()`` is
  called (the command wires SIGUSR1 to it);
* from then on simulated time follows the wall clock: every ``tick_s`` the simulator runs up
  to the wall-clock time elapsed since the start.

One lock guards the whole simulator: a controller's call into one switch and the simulator's
events never overlap. A packet-out waits for the simulator as an event; at most
``MAX_WAITING_PACKETS`` wait per switch, and past that ``inject`` waits for room. So a client
flooding packet-outs (before the start, when nothing runs, or faster than the switch) holds a
bounded backlog, and since the P4Runtime server hands packet-outs to ``inject`` a stream at a
time in turn, another client's packet waits behind at most that backlog, not the whole flood. Packets the pipeline sends to the CPU port run through egress and are
handed to the listeners (the P4Runtime stream as packet-ins); packets to other ports go on
the links, so listeners only hear the CPU port.
"""
from __future__ import annotations

import threading
import time
from typing import Any, Callable

from dataplane.control.live import Listener, Listeners
from dataplane.control.switch import Switch
from dataplane.net.core.pacing import WallClockPacer

MAX_WAITING_PACKETS = 256     # injected packets a switch holds before the simulator takes them


class CpuPort:
    """The CPU port of a served switch: egress runs at once (no link, no queue) and what it
    sends goes to the listeners."""

    def __init__(self, live: "LiveNode", number: int):
        self.live = live
        self.number = number
        self.queue: list = []        # SwitchNode.dequeue reads the queue's depth and bytes
        self.queue_bytes = 0

    def enqueue(self, item: Any, size: int) -> bool:
        node = self.live.node
        data = node.dequeue(self, item, node.sim.now, 0)
        if data is not None:
            self.live.deliver(self.number, data)
        return True


class LiveNode:
    """One switch of a running network with LiveSwitch's interface."""

    def __init__(self, network: "LiveNetwork", node: Any, device_id: int, cpu_port: int | None):
        self.network = network
        self.node = node
        self.name = node.name
        self.device_id = device_id
        self.cpu_port = cpu_port
        self.lock = network.lock
        self.configured = False      # a controller has set a new pipeline
        self.writes = 0              # Write calls from controllers (note_write)
        self.last_write = 0.0
        self.drops = 0
        self.waiting = 0             # injected packets the simulator has not taken in yet
        self._room = threading.Condition(self.lock)
        self._listeners = Listeners(self.lock)
        if cpu_port is not None:
            if cpu_port in node.ports:
                raise ValueError(f"switch {node.name}: CPU port {cpu_port} is also a link's port")
            node.cpu = CpuPort(self, cpu_port)

    @property
    def switch(self) -> Switch:
        return self.node.api

    def now_us(self) -> int:
        """The device clock: the network's simulated time in µs (what the pipeline sees)."""
        return self.node.sim.now // 1000

    def replace(self, switch: Switch | None) -> None:
        """A controller set a new pipeline: the switch runs it from now on, state empty."""
        if switch is None or switch is self.node.api:
            return     # the program the switch already runs (the server's initial pipeline)
        if switch.dp.architecture not in ("v1model", "psa"):
            raise ValueError(f"switch {self.name} in a network runs v1model or PSA programs, "
                             f"not {switch.dp.architecture}")
        with self.lock:
            self._drop_queued()
            self.node.load(switch)
            for number, port in self.node.ports.items():
                self.node.set_port_status(number, port.up)
            self.configured = True
            self.last_write = time.monotonic()

    def note_write(self) -> None:
        """A controller wrote to this switch (the server's Write or pipeline call ended)."""
        with self.lock:
            self.writes += 1
            self.last_write = time.monotonic()

    def _drop_queued(self) -> None:
        """Packets waiting for egress belong to the old pipeline (their metadata is its
        types): they are lost with it, counted as drops of the switch."""
        for port in self.node.ports.values():
            if port.queue:
                for _ in range(len(port.queue)):
                    self.node._drop("pipeline replaced")
                port.stats.drops += len(port.queue)
                port.queue.clear()
                port.queue_bytes = 0

    def listen(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(port, data)`` for every packet the switch sends to its CPU port."""
        return self._listeners.add(listener)

    def inject(self, port: int, data: bytes) -> None:
        """A packet arriving on ``port`` (a packet-out arrives on the CPU port) at the network's now;
        waits while MAX_WAITING_PACKETS are waiting for the simulator (not once the run is over)."""
        with self._room:
            while self.waiting >= MAX_WAITING_PACKETS and not self.network.over():
                self._room.wait(0.1)
            self.waiting += 1
            self.node.sim.schedule(0, self._arrive, port, bytes(data))

    def _arrive(self, port: int, data: bytes) -> None:
        with self._room:      # the simulator's thread; it holds the lock already when paced
            self.waiting -= 1
            self._room.notify_all()
        self.node._ingress(port, data)

    def deliver(self, port: int, data: bytes) -> None:
        # Called by the simulator's thread with the lock held; the listeners only queue the
        # packet for their stream, so holding it is harmless.
        for listener in self._listeners.snapshot():
            listener(port, data)


class LiveNetwork:
    """Every switch of ``net`` as a LiveNode (device ids from ``first_device_id`` in the
    network's order of switches), and the paced run."""

    def __init__(self, net: Any, *, cpu_port: int | None = None, first_device_id: int = 0,
                 settle_s: float = 1.0, tick_s: float = 0.001):
        self.net = net
        self.lock = threading.RLock()
        self.settle_s = settle_s
        self.tick_s = tick_s
        # --cpu-port for every switch, else each switch's own (topology.json's "cpu_port", as
        # simple_switch_grpc --cpu-port is given per switch by the tutorials' run_exercise.py)
        self.nodes = [LiveNode(self, node, first_device_id + i,
                               cpu_port if cpu_port is not None else node.spec.params.get("cpu_port"))
                      for i, node in enumerate(net.switches.values())]
        self._start = threading.Event()
        self._stop = threading.Event()
        self._over = threading.Event()
        self.started_at: float | None = None    # wall clock (monotonic) of simulated time 0
        self.pacer: WallClockPacer | None = None
        # The pacer's wait between steps (``wait(seconds)``); None: sleep a tick. Namespace hosts
        # give their TAP reader (dataplane.net.netns.realtime.TapReader), which takes ``lock``.
        self.idle: Callable[[float], None] | None = None

    def start(self) -> None:
        """Start the traffic now, configured or not (thread- and signal-safe)."""
        self._start.set()

    def stop(self) -> None:
        """End ``run`` early (thread-safe)."""
        self._stop.set()

    def over(self) -> bool:
        """Stopped, or the run has ended: nothing will take injected packets any more."""
        return self._stop.is_set() or self._over.is_set()

    def ready(self) -> bool:
        """A controller has written to some switch, and no switch has been written (or had its
        pipeline set) for settle_s."""
        if not any(n.writes for n in self.nodes):
            return False
        last = max(n.last_write for n in self.nodes)
        return time.monotonic() - last >= self.settle_s

    def wait_for_start(self, poll_s: float = 0.05) -> bool:
        """Block until the start (written and quiet, or ``start()``); False if stopped first."""
        while not self._start.is_set():
            if self._stop.is_set():
                return False
            with self.lock:
                if self.ready():
                    break
            self._start.wait(poll_s)
        return not self._stop.is_set()

    def run(self, until_ns: int | None, on_progress: Callable[[int], None] | None = None) -> bool:
        """Wait for the start, then run simulated time up to ``until_ns`` (None: until stopped)
        paced to the wall clock (``dataplane.net.core.pacing``; ``self.pacer`` holds its lag
        figures). False if stopped before the end."""
        try:
            return self._run(until_ns, on_progress)
        finally:
            self._over.set()

    def _run(self, until_ns: int | None, on_progress: Callable[[int], None] | None) -> bool:
        if not self.wait_for_start():
            return False

        def step(target: int) -> None:
            with self.lock:
                self.net.run(target)

        self.pacer = WallClockPacer(self.net, step)
        self.started_at = time.monotonic()
        # Controllers' packet-outs arrive on their own threads at any time: wake every tick.
        idle = self.idle
        wait = (lambda _: idle(self.tick_s)) if idle is not None else (lambda _: self._stop.wait(self.tick_s))
        return self.pacer.run(until_ns, wait, self._stop.is_set, on_progress, max_wait_s=self.tick_s)


def serve_network(live: LiveNetwork, host: str = "127.0.0.1", base_port: int = 50051,
                  **options: Any) -> list[Any]:
    """Start one P4Runtime server per switch: ``host:base_port`` for the first, then +1 each
    (the P4 tutorials' 50051, 50052, ...); ``options`` go to every ``P4RuntimeServer`` (give
    them one ``compiler`` to share). Returns the started servers; the caller stops them.
    Each server's Write calls are noted on its switch, so the network can tell when the
    controllers are done. ValueError past port 65535, OSError naming a port in use."""
    from dataplane.control.p4runtime.address import join_address
    from dataplane.control.p4runtime.server import P4RuntimeServer

    last = base_port + len(live.nodes) - 1
    if not 1 <= base_port <= last <= 65535:
        raise ValueError(f"{len(live.nodes)} switches need ports {base_port}..{last}, which is not within 1..65535")
    cache: dict = {}

    def make(i: int, node: LiveNode) -> Any:
        p4info, config = _pipeline(node, cache)
        server = P4RuntimeServer(node, join_address(host, base_port + i), p4info=p4info, device_config=config,
                                 **options)
        _note_writes(server.service, node)
        return server

    return start_servers(live, make)


def start_servers(live: LiveNetwork, make: Callable[[int, LiveNode], Any]) -> list[Any]:
    """``make(i, node)`` a server for each switch, in order, and start it; the started servers.
    One that cannot listen stops those already started, and its OSError names its switch."""
    servers: list[Any] = []
    try:
        for i, node in enumerate(live.nodes):
            server = make(i, node)
            try:
                server.start()
            except OSError as err:
                raise OSError(f"switch {node.name}: {err}") from None
            servers.append(server)
    except BaseException:
        for server in servers:
            server.stop()
        raise
    return servers


def _pipeline(node: LiveNode, cache: dict) -> tuple[Any, bytes]:
    """(P4Info, device config) of the program ``node`` runs from its topology, made once per
    program file (``cache``; the network compiled each file once too)."""
    from dataplane.control.device_config import make_device_config
    from dataplane.control.p4info import build_p4info

    path = node.node.spec.program
    if path not in cache:
        program = node.switch.program
        cache[path] = (build_p4info(program),
                       make_device_config(path, arch=getattr(program, "architecture", "v1model")))
    return cache[path]


def _note_writes(service: Any, node: LiveNode) -> None:
    """Wrap the service's Write RPC (before the server registers it) to call ``node.note_write``."""
    write = service.Write

    def noted_write(request, context):
        try:
            return write(request, context)
        finally:
            node.note_write()
    service.Write = noted_write
