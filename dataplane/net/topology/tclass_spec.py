"""Traffic classes of a switch's egress ports: how many queues, how they share the wire.

A switch's ``queues`` setting (YAML: ``queues:`` on the switch or in ``defaults``; stored as
``params["queues"]``) gives every egress port of the switch the same queue set:

    queues: {count: 4, scheduler: dwrr, weights: [1, 1, 2, 4], strict: [3], depth: 64p}

* ``count``: queues per port, 1..8 (BMv2's ``--priority-queues``; 1, the default, is one FIFO
  and leaves every existing result as it was);
* ``scheduler``: ``strict`` (the highest non-empty queue first, qid ``count - 1`` highest, as
  BMv2's priority queues) or ``dwrr`` (deficit weighted round robin, the scheduler 802.1Qaz
  ETS is usually built on: each backlogged queue gets bandwidth in proportion to its weight);
* ``weights``: one positive integer per queue (``dwrr``; default all 1);
* ``strict``: queues served before the weighted ones under ``dwrr`` (ETS's strict-priority
  traffic classes, e.g. the class carrying CNPs), highest qid first;
* ``depth``: each queue's capacity, one size (``64p``, ``256KB``) or a list per queue; by
  default each queue gets the link's ``queue``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dataplane.net.core.units import UnitError, parse_queue

__all__ = ["QueueConfig", "MAX_QUEUES"]

MAX_QUEUES = 8
_FIELDS = {"count", "scheduler", "weights", "strict", "depth"}


@dataclass(frozen=True)
class QueueConfig:
    """The egress queue set of every port of one switch (see the module docstring)."""
    count: int = 1
    scheduler: str = "strict"
    weights: tuple[int, ...] = ()
    strict: tuple[int, ...] = ()
    depth: tuple[tuple[int, str], ...] | None = None   # per queue, or None: the link's queue

    def __post_init__(self) -> None:
        if not 1 <= self.count <= MAX_QUEUES:
            raise ValueError(f"queues count must be 1..{MAX_QUEUES}, got {self.count}")
        if self.scheduler not in ("strict", "dwrr"):
            raise ValueError(f"queues scheduler must be strict or dwrr, got {self.scheduler!r}")
        if len(self.weights) != self.count or any(w < 1 for w in self.weights):
            raise ValueError(f"queues weights must be {self.count} positive integers, got {list(self.weights)}")
        if any(not 0 <= q < self.count for q in self.strict) or len(set(self.strict)) != len(self.strict):
            raise ValueError(f"queues strict must list distinct queue ids 0..{self.count - 1}, got {list(self.strict)}")
        if self.depth is not None and len(self.depth) != self.count:
            raise ValueError(f"queues depth must be one size or {self.count} sizes, got {len(self.depth)}")

    @property
    def multiple(self) -> bool:
        return self.count > 1

    @classmethod
    def from_value(cls, value: Any) -> "QueueConfig | None":
        """From a switch's ``params["queues"]``: a mapping as in the module docstring, a
        count (``queues: 8``: strict priority), or None (one queue)."""
        if value is None or isinstance(value, cls):
            return value
        if isinstance(value, bool):
            raise ValueError(f"queues must be a count or a mapping such as {{count: 8, scheduler: strict}}, "
                             f"got {value!r}")
        if isinstance(value, int):
            value = {"count": value}
        if not isinstance(value, dict):
            raise ValueError(f"queues must be a count or a mapping such as {{count: 8, scheduler: strict}}, "
                             f"got {value!r}")
        unknown = set(value) - _FIELDS
        if unknown:
            raise ValueError(f"unknown queues setting(s) {', '.join(sorted(map(str, unknown)))} "
                             f"(use {', '.join(sorted(_FIELDS))})")
        count = _int(value.get("count", 1), "count")
        weights = value.get("weights")
        weights = (1,) * count if weights is None else tuple(_int(w, "weights") for w in _list(weights, "weights"))
        strict = tuple(_int(q, "strict") for q in _list(value.get("strict", []), "strict"))
        depth = value.get("depth")
        if depth is not None:
            sizes = depth if isinstance(depth, (list, tuple)) else [depth] * count
            depth = tuple(_queue(d) for d in sizes)
        return cls(count=count, scheduler=str(value.get("scheduler", "strict")), weights=weights,
                   strict=strict, depth=depth)

    def as_dict(self) -> dict[str, Any]:
        """Plain data (what ``params["queues"]`` holds after loading)."""
        out: dict[str, Any] = {"count": self.count, "scheduler": self.scheduler, "weights": list(self.weights),
                               "strict": list(self.strict)}
        if self.depth is not None:
            out["depth"] = [f"{n}{'p' if kind == 'packets' else 'B'}" for n, kind in self.depth]
        return out


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"queues {what} must be whole numbers, got {value!r}")
    return value


def _list(value: Any, what: str) -> list:
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"queues {what} must be a list, got {value!r}")
    return list(value)


def _queue(value: Any) -> tuple[int, str]:
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return int(value[0]), str(value[1])
    try:
        return parse_queue(value)
    except UnitError as err:
        raise ValueError(f"queues depth: {err}") from None
