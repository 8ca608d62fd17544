"""The report's recorder on several MPI ranks: each rank's part, merged on rank 0.

Every rank samples at the same ticks (``Recorder`` runs as the world), each its own ports,
hosts and nodes (and the far ends of its ports' links). ``Session.gather``
(``dataplane.net.parallel.session``) stops the recorder on every rank, sends each rank's
``part`` to rank 0 and calls ``merge`` there, which leaves rank 0's recorder as one process's
would be: every port's samples from the rank that owns it, plus the frames other ranks saw
lost in flight from it (counted on the sending port, as ``Session.gather`` adds them to the
ports' totals); CE marks and program drops summed over the ranks' own hosts and nodes;
each pipeline's tables, counters and entries as its own rank found them (``node_facts``); each
port's frames as its own rank's tap counted them (``line_facts``); and the frames that arrived
at each rank's hosts, per flow, at the bin width one process would have reached (``Arrivals.merge``).
"""
from __future__ import annotations

from typing import Any

from dataplane.errors import InternalError
from dataplane.report.node_tables import node_tables


class RecorderOnRanks:
    """``Recorder``'s side of ``ParallelSimulator.track_gathered``."""

    def __init__(self, recorder: Any, lost_field: int) -> None:
        self.recorder = recorder          # a ``record.Recorder``
        self.lost_field = lost_field      # where a port sample holds the frames lost on the wire

    def finish(self) -> None:
        """Before the events are counted: the last sample, and the sampler's ticks uncounted."""
        self.recorder.stop()

    def part(self) -> dict[str, Any]:
        """What this rank knows that others do not (see the module docstring)."""
        rec = self.recorder
        local = rec.sim.local
        own: dict[int, tuple[list, list]] = {}
        lost: dict[int, list[int]] = {}
        for k, j in enumerate(rec.sampled_index):
            port = rec.ports[j]
            if local[port.node.actor]:
                own[j] = ([s[k] for s in rec.port_samples], [d[k] for d in rec.depth_samples])
            elif port.stats.lost:          # cumulative: none at the end, none in any sample
                lost[j] = [s[k][self.lost_field] for s in rec.port_samples]
        facts = {node.name: node_tables(node, rec) for node in rec.net.nodes()
                 if local[node.actor] and getattr(node, "api", None) is not None}
        return {"times": list(rec.times), "own": own, "lost": lost, "ce": rec.ce_samples,
                "program_drops": rec.program_drop_samples, "facts": facts, "lines": rec.line_facts,
                "arrivals": rec.arrivals.part()}

    def merge(self, parts: list[dict[str, Any]]) -> None:
        """On rank 0, with every rank's ``part`` in rank order."""
        rec = self.recorder
        for rank, part in enumerate(parts):
            if part["times"] != rec.times:
                raise InternalError(f"rank {rank} sampled the report at other times than rank 0")
        # Rank 0 sampled its own ports only: every port's columns come from its owner's part.
        ticks, width = len(rec.times), len(rec.ports)
        samples: list[list] = [[None] * width for _ in range(ticks)]
        depths: list[list] = [[0] * width for _ in range(ticks)]
        for part in parts:
            for j, (column, depth_column) in part["own"].items():
                for s, values in enumerate(column):
                    samples[s][j] = values
                    depths[s][j] = depth_column[s]
        for part in parts:
            for j, column in part["lost"].items():
                for s, n in enumerate(column):
                    values = list(samples[s][j])
                    values[self.lost_field] += n
                    samples[s][j] = tuple(values)
        rec.port_samples[:], rec.depth_samples[:] = samples, depths
        rec.sampled, rec.sampled_index = rec.ports, range(len(rec.ports))
        rec.ce_samples[:] = [sum(ns) for ns in zip(*(part["ce"] for part in parts))]
        rec.program_drop_samples[:] = [sum(ns) for ns in zip(*(part["program_drops"] for part in parts))]
        rec.node_facts, rec.line_facts = {}, {}
        for part in parts:
            rec.node_facts.update(part["facts"])
            rec.line_facts.update(part["lines"])
        rec.arrivals.merge([part["arrivals"] for part in parts])
