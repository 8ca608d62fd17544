"""A running network: nodes and links built from a ``TopologySpec``, failures, controllers, captures.

Switches run v1model or PSA programs (``SwitchNode``), DPUs run PNA programs behind a cost
model (``DpuNode``), hosts may run an XDP or eBPF filter program on their NIC (``XdpHost``); a
program of another architecture is refused before anything runs.

    net = Network.from_spec(load_topology("topologies/leaf-spine.yaml"), seed=1)
    Ping(net.host("h1"), net.host("h2").ip, count=3)
    net.run(until_ns=10_000_000)
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from dataplane.control.config_errors import ConfigError
from dataplane.control.loader import load_entries
from dataplane.control.switch import Switch
from dataplane.errors import DataplaneError
from dataplane.lang.frontend import compile_file
from dataplane.net.capture.pcap import PcapWriter
from dataplane.net.core.sim import Simulator
from dataplane.net.devices.controller import ControllerHandle, attach, load_controller
from dataplane.net.devices.dpu_node import DpuNode
from dataplane.net.devices.link import Link, Port
from dataplane.net.devices.switch_node import SwitchNode
from dataplane.net.topology.spec import TopologySpec

_WANT = {"pna": "a PNA program (PNA_NIC, #include <pna.p4>)",
         "v1model|psa": "a v1model (V1Switch) or PSA (PSA_Switch) program; use kind: dpu for a PNA program",
         "xdp|ebpf": "an XDP program (xdp(...) main, #include <xdp_model.p4>) or an eBPF filter "
                     "(ebpfFilter(...) main, #include <ebpf_model.p4>)"}


class NetworkError(DataplaneError):
    """The network could not be built or an event named something that does not exist."""


#: Called with every Network built while a report records (``dataplane.report.record.recording``),
#: so scenarios that build their networks deep inside are reported without knowing it.
observers: list = []


class Network:
    actor = 0    # the network's own events (failures) run as the world: on every process

    def __init__(self, spec: TopologySpec, seed: int = 0, sim: Simulator | None = None):
        self.spec = spec
        self.seed = seed
        self.sim = Simulator(seed) if sim is None else sim
        self.switches: dict[str, SwitchNode] = {}
        self.hosts: dict[str, Any] = {}
        self.dpus: dict[str, DpuNode] = {}
        self.links: list[Link] = []
        self.controllers: dict[str, ControllerHandle] = {}
        self.events_log: list[tuple[int, str]] = []
        self._log_keys: list[tuple[int, int]] = []    # (event key, actor) of each log line: merging ranks' logs
        self.local_nodes: set[str] | None = None      # on one of several ranks: the nodes it simulates
        self.parallel: Any = None                     # and then its parallel.session.Session
        self._captures: list[PcapWriter] = []

    # ---- construction --------------------------------------------------------------------------
    @classmethod
    def from_spec(cls, spec: TopologySpec, seed: int = 0, sim: Simulator | None = None,
                  netns_hosts: Any = None) -> "Network":
        """Build the network ``spec`` describes; ``sim``: one of several ranks' (dataplane.net.parallel);
        ``netns_hosts(sim, host_spec)`` builds the hosts the spec marks ``netns`` (a real-time run's
        namespace hosts); without it such a spec is refused."""
        from dataplane.net.hosts.host import Host

        net = cls(spec, seed, sim)
        programs: dict[Path, Any] = {}

        def program(name: str, path: Path, line: int, architecture: str, kind: str, field: str = "program"):
            prog = programs.get(path)
            if prog is None:
                prog = programs[path] = compile_file(path).program
            if prog.architecture not in architecture.split("|"):
                want = _WANT.get(architecture, architecture)
                message = (f"topology.nodes.{name}.{field}: {kind} '{name}' needs {want}, but {path.name} "
                           f"is {prog.architecture or 'of no known architecture'}")
                if spec.source is not None:
                    raise ConfigError(message, str(spec.source), line, path.name)
                raise NetworkError(message)
            return prog

        for name, s in spec.switches.items():
            api = Switch(program(name, s.program, s.line, "v1model|psa", "switch"), name=name, seed=seed,
                         lazy_registers=True)
            if s.entries is not None:
                load_entries(api, s.entries)
            net.switches[name] = SwitchNode(net.sim, s, api)
        for name, d in spec.dpus.items():
            problem = spec.dpu_port_problem(name)
            if problem is not None:
                raise NetworkError(f"DPU '{name}' {problem[0]}: {problem[2]}")
            api = Switch(program(name, d.program, d.line, "pna", "DPU"), name=name, seed=seed,
                         net_ports=spec.dpu_net_ports(name))
            if d.entries is not None:
                load_entries(api, d.entries)
            net.dpus[name] = DpuNode(net.sim, d, api)
        for name, h in spec.hosts.items():
            if h.netns:
                if netns_hosts is None:
                    raise NetworkError(f"host '{name}' is a namespace host (netns: true): run it with "
                                       "--realtime (dataplane run TOPOLOGY --realtime)")
                net.hosts[name] = netns_hosts(net.sim, h)
                continue
            if h.xdp is None:
                net.hosts[name] = Host(net.sim, h)
                continue
            from dataplane.net.hosts.xdp_host import XdpHost

            api = Switch(program(name, h.xdp.program, h.xdp.line or h.line, "xdp|ebpf", "host", "xdp.program"),
                         name=name, seed=seed)
            if h.xdp.entries is not None:
                load_entries(api, h.xdp.entries)
            net.hosts[name] = XdpHost(net.sim, h, api)
        for ls in spec.links:
            pa = net._port(*ls.a)
            pb = net._port(*ls.b)
            for p in (pa, pb):
                p.capacity, p.capacity_kind = ls.queue
            net.links.append(Link(net.sim, pa, pb, ls.bandwidth_bps, ls.latency_ns, ls.mtu, ls.loss, ls.corruption,
                                  ls.overhead))
        for node in net.switches.values():
            for number in node.ports:
                node.set_port_status(number, True)
        base = spec.source.parent if spec.source is not None else None
        for name, s in spec.switches.items():
            if s.controller:
                net.attach_controller(name, load_controller(s.controller, base), s.write_latency_ns)
        for observe in list(observers):
            observe(net)
        return net

    def _node(self, name: str) -> Any:
        return self.switches.get(name) or self.dpus.get(name) or self.hosts.get(name)

    def _port(self, node_name: str, number: int) -> Port:
        node = self._node(node_name)
        if node is None:
            raise NetworkError(f"link names unknown node '{node_name}'")
        if number in node.ports:
            raise NetworkError(f"port {node_name}:{number} is used by two links")
        label = f"{node_name}:eth{number}" if node_name in self.hosts else f"{node_name}:p{number}"
        return node.add_port(number, label)

    def attach_controller(self, switch: str, controller: Any, write_latency_ns: int | None = None) -> ControllerHandle:
        node = self.switch(switch)
        latency = node.spec.write_latency_ns if write_latency_ns is None else write_latency_ns
        handle = attach(self.sim, node, controller, latency)
        self.controllers[switch] = handle
        self.sim.schedule(0, handle.notify, "on_start")
        return handle

    # ---- lookup ----------------------------------------------------------------------------------
    def switch(self, name: str) -> SwitchNode:
        try:
            return self.switches[name]
        except KeyError:
            raise NetworkError(f"no switch named '{name}'") from None

    def dpu(self, name: str) -> DpuNode:
        try:
            return self.dpus[name]
        except KeyError:
            raise NetworkError(f"no DPU named '{name}'") from None

    def host(self, name: str):
        try:
            return self.hosts[name]
        except KeyError:
            raise NetworkError(f"no host named '{name}'") from None

    def nodes(self) -> list[Any]:
        """Every node: switches, then DPUs, then hosts."""
        return [*self.switches.values(), *self.dpus.values(), *self.hosts.values()]

    def link(self, a: str, b: str) -> Link:
        """The link between two endpoints, each ``node`` or ``node:port``."""
        for link in self.links:
            if _matches(a, link) and _matches(b, link):
                return link
        raise NetworkError(f"no link between {a} and {b}")

    # ---- failures ----------------------------------------------------------------------------------
    def set_link(self, a: str, b: str, up: bool, at_ns: int | None = None) -> None:
        """Take the link between ``a`` and ``b`` down or up now or at ``at_ns``."""
        link = self.link(a, b)
        when = self.sim.now if at_ns is None else at_ns
        self.sim.at(when, self._link_event, link, up)

    def _link_event(self, link: Link, up: bool) -> None:
        link.set_up(up)
        self._log(f"link {link.name} {'up' if up else 'down'}")
        for port in (link.a, link.b):
            node = port.node
            if isinstance(node, SwitchNode):
                self.sim.schedule_for(node.actor, node.spec.detection_ns, self._detected, node, port, up)

    def _detected(self, node: SwitchNode, port: Port, up: bool) -> None:
        if port.link is not None and port.link.up != up:
            return  # flapped back before detection
        node.set_port_status(port.number, up)
        self._log(f"{node.name} detects port {port.number} {'up' if up else 'down'}")
        handle = self.controllers.get(node.name)
        if handle is not None:
            handle.notify("on_link_up" if up else "on_link_down", port.number)

    def set_node(self, name: str, up: bool, at_ns: int | None = None) -> None:
        """Take a switch, DPU or host down (its links go with it) or up, now or at ``at_ns``."""
        node = self._node(name)
        if node is None:
            raise NetworkError(f"no node named '{name}'")
        when = self.sim.now if at_ns is None else at_ns
        self.sim.at(when, self._node_event, node, up)

    def _node_event(self, node: Any, up: bool) -> None:
        node.up = up
        self._log(f"node {node.name} {'up' if up else 'down'}")
        for port in node.ports.values():
            if port.link is not None:
                self._link_event(port.link, up)

    def _log(self, what: str) -> None:
        sim = self.sim
        self.events_log.append((sim.now, what))
        self._log_keys.append((getattr(sim, "_key", 0), sim.actor))

    # ---- running and capturing ------------------------------------------------------------------------
    def capture(self, directory: str | Path) -> None:
        """Write one pcap per port (what it sends) into ``directory``."""
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        for node in self.nodes():
            if self.local_nodes is not None and node.name not in self.local_nodes:
                continue      # another rank simulates it and writes its pcaps
            for port in node.ports.values():
                port.capture = PcapWriter(d / f"{port.name.replace(':', '-')}.pcap")
                self._captures.append(port.capture)

    def run(self, until_ns: int | None = None, on_progress=None) -> None:
        try:
            self.sim.run(until_ns, on_progress)
        finally:
            for w in self._captures:
                w.flush()

    def close(self) -> None:
        for w in self._captures:
            w.close()


def _matches(end: str, link: Link) -> bool:
    return end in (link.a.name, link.b.name, link.a.node.name, link.b.node.name) or \
        any(end == f"{p.node.name}:{p.number}" for p in (link.a, link.b))
