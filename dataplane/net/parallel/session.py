"""Setting a run up on several MPI ranks, and gathering its results to rank 0.

``Session.start(spec)`` under ``mpiexec -n N`` (N > 1) partitions the topology (every rank
computes the same partition), gives ``Network.from_spec`` a ``ParallelSimulator``, and after the
run ``gather`` brings every node's and app's counters to rank 0, which patches them into its own
copies of the remote nodes, so the metrics, JSON and plots are made by the same code as in one
process. Pcaps need no gathering: each rank writes the files of its own ports.
"""
from __future__ import annotations

import os
import sys
from typing import Any, Iterable

from dataplane.errors import DataplaneError
from dataplane.net.parallel.partition import Partition, node_names, partition
from dataplane.net.parallel.rank_stats import report as report_ranks
from dataplane.net.parallel.rank_stats import wanted as ranks_wanted
from dataplane.net.parallel.runtime import ParallelError, ParallelSimulator
from dataplane.net.parallel.state import apply_state, plain_state
from dataplane.net.topology.spec import TopologySpec

_SIZE_VARS = ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS")


def mpi_world_size() -> int:
    """How many ranks the MPI launcher started this process among (1 when not under mpiexec)."""
    for var in _SIZE_VARS:
        value = os.environ.get(var)
        if value and value.isdigit():
            return int(value)
    return 1


def on_root() -> bool:
    """True in one process and on rank 0 of several: the process that prints and writes."""
    if mpi_world_size() <= 1:
        return True
    from mpi4py import MPI

    return MPI.COMM_WORLD.Get_rank() == 0


class AgreedExit(SystemExit):
    """An exit every rank but 0 makes at the same point of a run, where each found the same
    problem and rank 0 raises it (marked ``on_every_rank``) to say it once: no rank is left
    waiting, so ``end_every_rank`` lets them end as they are."""


def end_every_rank(exit_: SystemExit) -> None:
    """A failure on one of several MPI ranks: end them all now (``MPI_Abort``) with its status.

    A rank that exits on its own leaves the others waiting at their next exchange for ever, and
    Open MPI's ``mpiexec`` with them, since the failed rank finalised MPI as a finished one does.
    Does nothing for a status of 0, on one process, before MPI started or after it ended, and for
    an exit every rank makes (``AgreedExit``, or the error rank 0 raised beside them). What was
    printed is flushed first: the abort kills this process too."""
    mpi = sys.modules.get("mpi4py.MPI")
    status = exit_.code
    if not status or mpi is None or mpi_world_size() <= 1:
        return
    if isinstance(exit_, AgreedExit) or getattr(exit_.__context__, "on_every_rank", False):
        return
    if not mpi.Is_initialized() or mpi.Is_finalized():
        return
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):      # a closed pipe or stream: nothing more to say there
            pass
    mpi.COMM_WORLD.Abort(status if isinstance(status, int) else 1)


class Session:
    """One rank's view of a partitioned run."""

    def __init__(self, spec: TopologySpec, comm: Any):
        self.spec = spec
        self.comm = comm
        self.rank, self.size = comm.Get_rank(), comm.Get_size()
        self.partition: Partition = partition(spec, self.size)
        if self.size > 1 and self.partition.cut_links and self.partition.lookahead_ns <= 0:
            raise ParallelError("a cut link has no latency, so the ranks could never run ahead")
        self.names = node_names(spec)
        self.local = [True] + [self.partition.rank_of[n] == self.rank for n in self.names]
        self.sim: ParallelSimulator | None = None

    @classmethod
    def start(cls, spec: TopologySpec) -> "Session | None":
        """A session when this process is one of several MPI ranks, else None (one process)."""
        if mpi_world_size() <= 1:
            return None
        try:
            from mpi4py import MPI
        except ImportError:
            raise ParallelError("running on several ranks needs mpi4py: pip install 'dataplane[mpi]' "
                                "(and MPI itself, e.g. apt-get install openmpi-bin)") from None
        comm = MPI.COMM_WORLD
        try:
            return cls(spec, comm)
        except DataplaneError as err:
            if comm.Get_rank() == 0:
                err.on_every_rank = True      # type: ignore[attr-defined]
                raise
            raise AgreedExit(1) from None     # every rank finds the same problem: rank 0 says it once

    @property
    def root(self) -> bool:
        return self.rank == 0

    def simulator(self, seed: int) -> ParallelSimulator:
        self.sim = ParallelSimulator(seed, self.local, self.comm, self.partition.lookahead_ns)
        return self.sim

    def is_local(self, node: Any) -> bool:
        return self.local[node.actor]

    def attach(self, net: Any) -> None:
        """After ``Network.from_spec``: check the actors, route the cut links' frames to outboxes."""
        sim = self.sim
        for name in self.names:
            node = net._node(name)
            if self.names[node.actor - 1] != name:
                raise ParallelError(f"node {name} was built out of order (actor {node.actor})")
        net.local_nodes = {n for n in self.names if self.partition.rank_of[n] == self.rank}
        rank_of = self.partition.rank_of
        for i in self.partition.cut_links:
            link = net.links[i]
            for side, port in enumerate((link.a, link.b)):
                sim.ports_by_link[(i, side)] = port
                if rank_of[port.node.name] == self.rank:
                    port._out = []
                    sim.cut_ports.append((port, rank_of[port.peer.node.name], i, side ^ 1))

    # ---- results -------------------------------------------------------------------------------------
    def gather(self, net: Any, apps: Iterable[Any] = ()) -> bool:
        """Bring every rank's nodes and ``apps`` (in the same order on every rank) to rank 0 and
        patch them into its copies; True on rank 0, which then reports as one process would."""
        sim = self.sim
        apps = list(apps)
        gathered, sim.gathered = sim.gathered, []
        for result in gathered:
            result.finish()
        nodes = {}
        for node in net.nodes():
            if self.local[node.actor]:
                nodes[node.name] = (plain_state(node),
                                    {n: (p.stats, p.paused_until, _queue_state(p)) for n, p in node.ports.items()})
        # DPUs and XDP hosts: what their pipelines did (busy time, the program's counters) is
        # not plain state, so their own rank makes their --json summary.
        summaries = {node.name: node.summary(sim.now) for node in net.nodes()
                     if self.local[node.actor] and _has_pipeline_summary(node)}
        watchdogs = {node.name: node.pfc_watchdog.result_state() for node in net.nodes()
                     if self.local[node.actor] and getattr(node, "pfc_watchdog", None) is not None}
        controllers = {name: plain_state(handle) for name, handle in getattr(net, "controllers", {}).items()
                       if self.local[handle.node.actor]}
        lost = _remote_lost(net, self.local)
        mine = [(i, plain_state(app)) for i, app in enumerate(apps) if self.local[_app_actor(app)]]
        log = [(t, key, actor, what) for (t, what), (key, actor) in zip(net.events_log, net._log_keys)]
        results = [result.part() for result in gathered]
        stats = {"events": sim.local_events, "world_events": sim.world_events, "windows": sim.windows,
                 "cut_messages": sim.cut_messages, "busy_s": sim.busy_s, "busy_cpu_s": sim.busy_cpu_s,
                 "pack_cpu_s": sim.pack_cpu_s, "window_cpu_s": sim.window_cpu_s,
                 "pipeline_runs": sum(getattr(node, "packets_in", 0) for node in net.nodes()
                                      if self.local[node.actor] and node.kind == "switch"),
                 "sync_s": sim.sync_s, "max_rss_mb": _max_rss_mb()}
        parts = self.comm.gather((nodes, lost, mine, log, stats, controllers, results, summaries, watchdogs), root=0)
        if not self.root:
            return False
        extra: dict[tuple[str, int], int] = {}
        merged_log = []
        self.rank_stats = []
        net.pipeline_summaries = {}
        for rank, (their_nodes, their_lost, their_apps, their_log, their_stats, their_controllers,
                   _, their_summaries, their_watchdogs) in enumerate(parts):
            net.pipeline_summaries.update(their_summaries)
            for where, n in their_lost.items():
                extra[where] = extra.get(where, 0) + n
            if rank:
                for name, (state, ports) in their_nodes.items():
                    node = net._node(name)
                    apply_state(node, state)
                    for number, (stats, paused_until, queues) in ports.items():
                        port = node.ports[number]
                        port.stats = stats
                        port.paused_until = paused_until
                        if queues is not None:        # traffic classes: each queue's counters
                            port.queue.stats, port.queue.paused_until = queues
                for i, state in their_apps:
                    apply_state(apps[i], state)
                for name, state in their_controllers.items():
                    apply_state(net.controllers[name], state)
                for name, state in their_watchdogs.items():
                    net._node(name).pfc_watchdog.apply_result_state(state)
            merged_log += [entry for entry in their_log if rank == 0 or entry[2] != 0]   # the world's: once
            self.rank_stats.append(their_stats)
        for (name, number), n in extra.items():
            net._node(name).ports[number].stats.lost += n
        merged_log.sort(key=lambda e: (e[0], e[1]))     # stable: one event's lines keep their order
        net.events_log[:] = [(t, what) for t, _, _, what in merged_log]
        world = self.rank_stats[0]["world_events"]
        sim.events_run = sum(s["events"] for s in self.rank_stats) - (self.size - 1) * world
        for i, result in enumerate(gathered):
            result.merge([part[6][i] for part in parts])
        if ranks_wanted():          # DATAPLANE_RANK_STATS: on stderr, outside every output
            report_ranks(self.rank_stats)
        return True


def _queue_state(port: Any) -> tuple[list, list[int]] | None:
    """A traffic-class port's per-queue counters and pauses (``queue_metrics`` reads them)."""
    if not hasattr(port, "queue_metrics"):
        return None
    return port.queue.stats, port.queue.paused_until


def _has_pipeline_summary(node: Any) -> bool:
    """A DPU, or a host with an XDP program: ``metrics.summary`` lists its ``summary(now)``."""
    return getattr(node, "kind", None) == "dpu" or hasattr(node, "xdp_stats")


def _max_rss_mb() -> float:
    """This process's peak resident memory so far, MB (Linux counts kB), 0 where unknown."""
    try:
        import resource
    except ImportError:
        return 0.0
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _remote_lost(net: Any, local: list[bool]) -> dict[tuple[str, int], int]:
    """Frames lost on a failed link while in flight to one of this rank's ports are counted on the
    sender's port, a remote one here: those counts, to be added to the owner's."""
    out = {}
    for node in net.nodes():
        if not local[node.actor]:
            for number, port in node.ports.items():
                if port.stats.lost:
                    out[(node.name, number)] = port.stats.lost
    return out


def _app_actor(app: Any) -> int:
    """The actor whose rank holds ``app``'s results: its host's, or (an observer) its node's."""
    host = getattr(app, "host", None) or getattr(app, "node", None)
    if host is None:
        raise ParallelError(f"cannot tell which host runs {type(app).__name__}: it has no 'host'")
    return host.actor


def build_network(spec: TopologySpec, seed: int = 0) -> Any:
    """``Network.from_spec(spec, seed)``, on this rank's part when under ``mpiexec -n N``: the
    network's ``parallel`` is then its ``Session`` (None on one process). For code that builds
    its own networks (the scenarios): pair it with ``gather_results``."""
    from dataplane.net.fabric.network import Network

    part = Session.start(spec)
    net = Network.from_spec(spec, seed=seed, sim=part.simulator(seed) if part else None)
    if part is not None:
        part.attach(net)
    net.parallel = part
    return net


def gather_results(net: Any, apps: Iterable[Any] = ()) -> bool:
    """After the run of a ``build_network`` network: bring every rank's results to rank 0
    (``Session.gather``). True where the results are whole (rank 0, or one process)."""
    part = getattr(net, "parallel", None)
    return part.gather(net, apps) if part is not None else True


def is_local(net: Any, node: Any) -> bool:
    """True if this rank simulates ``node`` (always on one process)."""
    part = getattr(net, "parallel", None)
    return part is None or part.is_local(node)
