"""A collective as data: for every rank, a list of sends and receives with their dependencies.

An ``Op`` moves ``count`` elements from or into one of the rank's buffers (``BUF``: the
input, reduced or gathered in place; ``OUT``: the output of AlltoAll and SendRecv) at element
``offset``. A send goes to ``peer`` on ``channel`` (one connection per peer and channel) and
leaves once every op in ``deps`` is done; sends on one connection leave in list order. A
receive takes the next message from ``peer`` on ``channel`` (messages are matched in the
order they were sent, as RDMA's two-sided operations are) and adds it into the buffer
(``reduce``) or copies it there. A send is done when the peer has acknowledged it, a receive
when its message has arrived.

``PlanBuilder`` collects the ops of every rank; the algorithms (``ring``, ``tree``,
``hierarchical``, ``pairwise``) append to one. ``split`` and ``slices`` cut a region of
elements the way NCCL does: into one chunk per rank, then each chunk into slices that are
pipelined step by step.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

__all__ = ["BUF", "OUT", "Op", "Plan", "PlanBuilder", "split", "slices", "Region"]

BUF, OUT = 0, 1
Region = tuple[int, int]          # (first element, element count)


@dataclass(frozen=True)
class Op:
    """One send or receive of one rank (module docstring)."""

    send: bool
    peer: int
    channel: int
    offset: int
    count: int
    buf: int = BUF
    reduce: bool = False
    deps: tuple[int, ...] = ()


@dataclass
class Plan:
    """Every rank's ops (``ops[rank]``), and what the plan moves: the element size in bytes."""

    ops: list[list[Op]]
    elem_bytes: int = 4

    @property
    def ranks(self) -> int:
        return len(self.ops)

    def bytes_sent(self, rank: int) -> int:
        return sum(op.count for op in self.ops[rank] if op.send) * self.elem_bytes

    def bytes_received(self, rank: int) -> int:
        return sum(op.count for op in self.ops[rank] if not op.send) * self.elem_bytes

    def traffic(self) -> dict[tuple[int, int], list[int]]:
        """The sizes in bytes of the messages from rank a to rank b, for every pair that exchanges
        any (for the bound)."""
        out: dict[tuple[int, int], list[int]] = {}
        for rank, ops in enumerate(self.ops):
            for op in ops:
                if op.send:
                    out.setdefault((rank, op.peer), []).append(op.count * self.elem_bytes)
        return out

    def check(self) -> None:
        """Every send has a receive at its peer with the same size, in the same order per
        connection; raises ValueError naming the first mismatch (a builder bug)."""
        sent: dict[tuple[int, int, int], list[int]] = {}
        got: dict[tuple[int, int, int], list[int]] = {}
        for rank, ops in enumerate(self.ops):
            for i, op in enumerate(ops):
                if any(d >= i for d in op.deps):
                    raise ValueError(f"rank {rank} op {i} depends on a later op")
                if op.send:
                    sent.setdefault((rank, op.peer, op.channel), []).append(op.count)
                else:
                    got.setdefault((op.peer, rank, op.channel), []).append(op.count)
        if sent != got:
            bad = next(k for k in sorted(set(sent) | set(got)) if sent.get(k) != got.get(k))
            raise ValueError(f"sends and receives differ from rank {bad[0]} to rank {bad[1]} "
                             f"on channel {bad[2]}: {sent.get(bad)} sent, {got.get(bad)} received")


@dataclass
class PlanBuilder:
    """Ops appended rank by rank; ``add`` returns the op's index for later ``deps``."""

    ranks: int
    elem_bytes: int = 4
    ops: list[list[Op]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.ops:
            self.ops = [[] for _ in range(self.ranks)]

    def send(self, rank: int, peer: int, channel: int, region: Region, deps: Sequence[int] = (),
             buf: int = BUF) -> int:
        return self._add(rank, Op(True, peer, channel, region[0], region[1], buf, False, tuple(deps)))

    def recv(self, rank: int, peer: int, channel: int, region: Region, reduce: bool, buf: int = BUF) -> int:
        return self._add(rank, Op(False, peer, channel, region[0], region[1], buf, reduce))

    def _add(self, rank: int, op: Op) -> int:
        ops = self.ops[rank]
        ops.append(op)
        return len(ops) - 1

    def build(self) -> Plan:
        plan = Plan(self.ops, self.elem_bytes)
        plan.check()
        return plan


def split(region: Region, parts: int) -> list[Region]:
    """``region`` cut into ``parts`` consecutive pieces whose sizes differ by at most one."""
    first, count = region
    bounds = [first + count * i // parts for i in range(parts + 1)]
    return [(bounds[i], bounds[i + 1] - bounds[i]) for i in range(parts)]


#: Slices a chunk is cut into at least, if that leaves them ``MIN_SLICE_ELEMS`` or more: NCCL's
#: pipeline depth (NCCL_STEPS, 8 buffers per connection), so a chunk smaller than 8 slices of
#: the configured size still moves as a pipeline; 1,024 float32 is one 4 KB packet.
PIPELINE_DEPTH = 8
MIN_SLICE_ELEMS = 1024


def slices(chunks: Sequence[Region], slice_elems: int) -> int:
    """How many slices each of ``chunks`` is cut into: enough that none exceeds ``slice_elems``,
    and ``PIPELINE_DEPTH`` where slices stay ``MIN_SLICE_ELEMS`` or larger (the same number for
    every chunk, so step s's slice j follows step s-1's slice j)."""
    largest = max((c for _, c in chunks), default=0)
    need = -(-largest // max(1, slice_elems))
    return max(1, need, min(PIPELINE_DEPTH, largest // MIN_SLICE_ELEMS))
