"""A training job: its GPUs, parallelism, layers and steps (``Job``), and the job file that says so.

A job file is YAML; every key is optional but the model::

    gpus: 16                 # the first N hosts of the fabric, or a list of host names (rank order)
    steps: 3
    model:                   # either a model, whose layers are derived (``model_layers``) ...
      parameters: 20M        # K, M, G, T: 10^3 ... 10^12
      layers: 12
      tokens: 16K            # per data-parallel replica per step
      flops: 100T            # effective FLOP/s of one GPU
      gradient_bytes: 2      # per parameter (bf16)
    layers:                  # ... or the layers themselves, per micro-batch on one GPU
      - {count: 12, forward: 300us, backward: 600us, gradient: 3MB, activation: 1MB}
    parallel: {data: 16, tensor: 1, pipeline: 1, microbatches: 1}   # data: what the others leave
    bucket: 25MiB            # gradient bucket of the data-parallel AllReduce (PyTorch DDP's default)
    optimizer: 200us         # after the last bucket's AllReduce
    collective: {algorithm: ring, channels: 1}
    lb: spray                # the fabric's load balancing: ecmp, flowlet, spray or adaptive (a
                             # built-in program on every switch; none: programs/ecn.p4's ECMP) ...
    lb:                      # ... or with its settings (dataplane.net.loadbalance.schemes.LbConfig)
      scheme: flowlet
      receiver: sack         # the transport's receiver: sack (the default with lb) or gbn
      hash_seed: 0           # ecmp
      hash_fields: [src, dst, proto, sport, dport]
      flowlet_us: 50         # flowlet: the gap
      flowlet_choice: random # flowlet: random or least-loaded
      spray: round-robin     # spray: round-robin or random
      quantum: 16KiB         # adaptive, flowlet least-loaded: loads compared in these units
      window: 96             # packets in flight per flow (default: none; reps 96) ...
      window_counts: pipe    # ... counted as the PSN span (default) or the pipe (sack only)
      spray_acks: true       # reps: each ACK on a fresh entropy, not the flow's (default false)
      ack_priority: true     # ACKs in a class the switches serve first (default false)
      components: true       # adaptive, flowlet least-loaded: DRILL's symmetric components (default false)

Without ``lb`` the receivers are go-back-N (RoCE's); with it, selective repeat unless ``receiver``
says otherwise (spraying and adaptive routing reorder packets).

Sizes take B, KB/MB/GB (10^3...), KiB/MiB/GiB (2^10...); times ns/us/ms/s. Every error names
the file, the line and the field.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dataplane.control.config_errors import ConfigError

__all__ = ["Layer", "Job", "load_job", "job_from_text", "model_layers", "ALGORITHMS"]

ALGORITHMS = ("ring", "tree", "hierarchical")
_COUNT = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
_SIZE = {"b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "kib": 2**10, "mib": 2**20, "gib": 2**30}


@dataclass(frozen=True)
class Layer:
    """One layer on one GPU for one micro-batch: compute times, its gradient (per GPU) and the
    activation it hands on (per micro-batch: pipeline sends and tensor-parallel AllReduces)."""

    forward_ns: int
    backward_ns: int
    gradient_bytes: int
    activation_bytes: int = 0


@dataclass
class Job:
    """What runs (module docstring); ``data`` is derived from the GPUs when not given."""

    layers: list[Layer]
    gpus: int | list[str] = 16
    steps: int = 2
    data: int = 0
    tensor: int = 1
    pipeline: int = 1
    microbatches: int = 1
    bucket_bytes: int = 25 * 2**20
    optimizer_ns: int = 0
    algorithm: str = "ring"
    channels: int = 1
    lb: Any = None                   # a dataplane.net.loadbalance.schemes.LbConfig, or None
    receiver: str = "gbn"            # the transport's receiver (dataplane.net.rdma)
    name: str = "job"
    source: str = "<job>"
    notes: list[str] = field(default_factory=list)

    @property
    def world(self) -> int:
        return self.data * self.tensor * self.pipeline

    def stage_layers(self, stage: int) -> list[Layer]:
        """The layers of pipeline stage ``stage`` (contiguous, as even as the count allows)."""
        n = len(self.layers)
        lo, hi = n * stage // self.pipeline, n * (stage + 1) // self.pipeline
        return self.layers[lo:hi]

    def coordinates(self, gpu: int) -> tuple[int, int, int]:
        """(pipeline stage, data-parallel replica, tensor-parallel index) of GPU ``gpu``: tensor
        parallelism innermost (neighbouring GPUs, so a rack), then data, then pipeline (Megatron's order)."""
        per_stage = self.data * self.tensor
        return gpu // per_stage, (gpu % per_stage) // self.tensor, gpu % self.tensor

    def gpu_at(self, stage: int, replica: int, index: int) -> int:
        return stage * self.data * self.tensor + replica * self.tensor + index


def model_layers(parameters: float, layers: int, tokens: float, flops: float, *, gradient_bytes: float = 2,
                 tensor: int = 1, microbatches: int = 1, activation_bytes: float = 2) -> list[Layer]:
    """Layers of a transformer of ``parameters`` in ``layers`` equal layers: per micro-batch of
    tokens/microbatches tokens, forward 2 x params x tokens FLOPs and backward twice that (the
    usual 6 x params x tokens a step), split over ``tensor`` GPUs; the hidden size h from
    params = 12 L h^2, so an activation is tokens x h values."""
    per_layer = parameters / layers
    mb_tokens = tokens / microbatches
    forward = 2 * per_layer * mb_tokens / tensor / flops * 1e9
    hidden = math.sqrt(parameters / (12 * layers))
    layer = Layer(forward_ns=max(1, round(forward)), backward_ns=max(1, round(2 * forward)),
                  gradient_bytes=max(4, int(per_layer / tensor * gradient_bytes) // 4 * 4),
                  activation_bytes=max(4, int(mb_tokens * hidden * activation_bytes) // 4 * 4))
    return [layer] * layers


# ---- the job file ----------------------------------------------------------------------------------
def load_job(path: str | Path) -> Job:
    """Read a job file; ``ConfigError`` with the file and line for anything wrong."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"cannot read the job file: {getattr(err, 'strerror', None) or err}", str(p)) from None
    return job_from_text(text, str(p))


def job_from_text(text: str, filename: str = "<job>") -> Job:
    from dataplane.net.topology.reader import Reader, load_yaml_text

    doc = load_yaml_text(text, filename)
    r = Reader(Path(filename))
    top = r.mapping(doc, "", 1)
    r.no_duplicates(top, "")
    r.unknown(top, {"name", "gpus", "steps", "model", "layers", "parallel", "bucket", "optimizer", "collective", "lb"},
              "")
    line = r.line_of
    if ("model" in top) == ("layers" in top):
        raise r.err(getattr(top, "line", 1), "", "give either 'model' (parameters, layers, ...) or 'layers', not both"
                    if "model" in top else "the job needs a 'model' or its 'layers'")
    parallel = r.mapping(top.get("parallel"), "parallel", line(top, "parallel"))
    r.unknown(parallel, {"data", "tensor", "pipeline", "microbatches"}, "parallel")
    tensor = _whole(r, parallel, "tensor", "parallel", 1, 1024)
    pipeline = _whole(r, parallel, "pipeline", "parallel", 1, 1024)
    microbatches = _whole(r, parallel, "microbatches", "parallel", 1, 4096)
    gpus = _gpus(r, top)
    count = gpus if isinstance(gpus, int) else len(gpus)
    data = _whole(r, parallel, "data", "parallel", 1, 1024, default=0)
    if not data:
        if count % (tensor * pipeline):
            raise r.err(line(top, "gpus"), "gpus", f"{count} GPUs do not split into tensor x pipeline = "
                        f"{tensor} x {pipeline} groups")
        data = count // (tensor * pipeline)
    elif data * tensor * pipeline != count:
        raise r.err(line(parallel, "data"), "parallel.data", f"data x tensor x pipeline = {data} x {tensor} x "
                    f"{pipeline} = {data * tensor * pipeline}, but the job has {count} GPUs")
    if "model" in top:
        layers = _model(r, r.mapping(top["model"], "model", line(top, "model")), tensor, microbatches)
    else:
        layers = _layers(r, top["layers"], line(top, "layers"))
    if len(layers) < pipeline:
        raise r.err(line(parallel, "pipeline"), "parallel.pipeline", f"{pipeline} stages but only {len(layers)} layers")
    coll = r.mapping(top.get("collective"), "collective", line(top, "collective"))
    r.unknown(coll, {"algorithm", "channels"}, "collective")
    algorithm = coll.get("algorithm", "ring")
    if algorithm not in ALGORITHMS:
        raise r.err(line(coll, "algorithm"), "collective.algorithm",
                    f"must be one of {', '.join(ALGORITHMS)}, got {algorithm!r}", algorithm)
    lb, receiver = _lb(r, top) if "lb" in top else (None, "gbn")
    return Job(layers=layers, gpus=gpus, steps=_whole(r, top, "steps", "", 1, 1000, default=2), data=data,
               tensor=tensor, pipeline=pipeline, microbatches=microbatches,
               bucket_bytes=_size(r, top, "bucket", "", 25 * 2**20),
               optimizer_ns=_time(r, top, "optimizer", "", 0), algorithm=algorithm,
               channels=_whole(r, coll, "channels", "collective", 1, 32), lb=lb, receiver=receiver,
               name=str(top.get("name", Path(filename).stem)), source=filename)


_LB_KEYS = {"scheme": "scheme", "hash_seed": "hash_seed", "hash_fields": "hash_fields", "flowlet_us": "flowlet_us",
            "flowlet_choice": "flowlet_choice", "spray": "spray_order", "window": "window",
            "window_counts": "window_counts", "spray_acks": "spray_acks", "ack_priority": "ack_priority",
            "components": "components"}
_LB_FLAGS = ("spray_acks", "ack_priority", "components")


def _lb(r: Any, top: dict) -> tuple[Any, str]:
    """``lb:``, a scheme's name or a mapping (module docstring): (LbConfig, receiver)."""
    from dataplane.net.loadbalance.schemes import LbConfig
    from dataplane.net.rdma.config import RECEIVERS, WINDOW_COUNTS

    value, line = top["lb"], r.line_of(top, "lb")
    m = {"scheme": value} if isinstance(value, str) else r.mapping(value, "lb", line)
    r.unknown(m, {*_LB_KEYS, "receiver", "quantum"}, "lb")
    if "scheme" not in m:
        raise r.err(line, "lb", "needs 'scheme' (ecmp, flowlet, spray, adaptive or reps)")
    receiver = str(m.get("receiver", "sack"))
    if receiver not in RECEIVERS:
        raise r.err(r.line_of(m, "receiver"), "lb.receiver", f"must be one of {', '.join(RECEIVERS)}, got {receiver!r}",
                    receiver)
    kwargs: dict[str, Any] = {}
    for key, field_name in _LB_KEYS.items():
        if key in m:
            v = m[key]
            if key == "hash_fields":
                v = tuple(str(x).strip() for x in (v if isinstance(v, list) else str(v).split(",")))
            elif key in ("hash_seed", "flowlet_us"):
                v = r.positive_int(v, r.line_of(m, key), f"lb.{key}", 0 if key == "hash_seed" else 1, 2**32 - 1)
            elif key == "window":
                v = r.positive_int(v, r.line_of(m, key), "lb.window", 1, 65536)
            elif key in _LB_FLAGS:
                if not isinstance(v, bool):
                    raise r.err(r.line_of(m, key), f"lb.{key}", f"must be true or false, got {v!r}", v)
            elif key == "window_counts" and str(v) not in WINDOW_COUNTS:
                raise r.err(r.line_of(m, key), "lb.window_counts", f"must be one of {', '.join(WINDOW_COUNTS)}, "
                            f"got {v!r}", v)
            else:
                v = str(v)
            kwargs[field_name] = v
    if "quantum" in m:
        quantum = int(_size(r, m, "quantum", "lb", 0))
        if quantum & (quantum - 1) or quantum > 2**31:
            raise r.err(r.line_of(m, "quantum"), "lb.quantum", f"must be a power of two up to 2 GiB, got {m['quantum']!r}",
                        m["quantum"])
        kwargs["load_shift"] = shift = quantum.bit_length() - 1
        # path mode's unit may be no finer, and a job file does not set it (the command's rule)
        kwargs["path_shift"] = max(LbConfig.path_shift, shift)
    try:
        cfg = LbConfig(**kwargs)
    except ValueError as err:
        raise r.err(line, "lb", str(err)) from None
    if cfg.host_entropy and receiver != "sack":
        # the entropy echo rides in the selective ACK (dataplane.net.rdma.entropy)
        raise r.err(r.line_of(m, "receiver"), "lb.receiver", "reps sprays from the hosts and needs the sack receiver",
                    receiver)
    if cfg.window_counts == "pipe" and receiver != "sack":
        # the pipe is counted from the selective ACKs' bitmaps
        raise r.err(r.line_of(m, "window_counts"), "lb.window_counts", "pipe needs the sack receiver", receiver)
    return cfg, receiver


def _gpus(r: Any, top: dict) -> int | list[str]:
    value = top.get("gpus", 16)
    if isinstance(value, list):
        names = [str(v) for v in value]
        if not names or len(set(names)) != len(names):
            raise r.err(r.line_of(top, "gpus"), "gpus", "must list distinct host names")
        return names
    return r.positive_int(value, r.line_of(top, "gpus"), "gpus", 1, 1024)


def _whole(r: Any, m: dict, key: str, where: str, low: int, high: int, default: int = 1) -> int:
    if key not in m:
        return default
    return r.positive_int(m[key], r.line_of(m, key), f"{where}.{key}" if where else key, low, high)


def _number(r: Any, m: dict, key: str, where: str, units: dict[str, int], what: str) -> float:
    value, line, name = m.get(key), r.line_of(m, key), f"{where}.{key}" if where else key
    if isinstance(value, bool) or value is None:
        raise r.err(line, name, f"must be {what}, got {value!r}", value)
    if isinstance(value, (int, float)):
        number = float(value)
    else:
        found = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)\s*([A-Za-z]*)\s*", str(value))
        if found is None or found.group(2).lower() not in units:
            raise r.err(line, name, f"cannot read {value!r} as {what}", value)
        number = float(found.group(1)) * units[found.group(2).lower()]
    if not math.isfinite(number) or number <= 0 or number > 1e30:
        raise r.err(line, name, f"must be {what} above zero, got {value!r}", value)
    return number


def _size(r: Any, m: dict, key: str, where: str, default: int) -> int:
    return int(_number(r, m, key, where, _SIZE, "a size (e.g. 25MiB)")) if key in m else default


def _time(r: Any, m: dict, key: str, where: str, default: int) -> int:
    from dataplane.net.core.units import parse_time

    if key not in m:
        return default
    name = f"{where}.{key}" if where else key
    ns = r.unit(parse_time, m[key], r.line_of(m, key), name)
    if not 0 <= ns <= 10**15:
        raise r.err(r.line_of(m, key), name, f"must be a time from 0 to 10^6 s, got {m[key]!r}", m[key])
    return int(ns)


def _model(r: Any, m: dict, tensor: int, microbatches: int) -> list[Layer]:
    r.unknown(m, {"parameters", "layers", "tokens", "flops", "gradient_bytes"}, "model")
    for key in ("parameters", "layers", "tokens", "flops"):
        if key not in m:
            raise r.err(getattr(m, "line", 0), "model", f"needs '{key}'")
    layers = r.positive_int(m["layers"], r.line_of(m, "layers"), "model.layers", 1, 10_000)
    grad = _number(r, m, "gradient_bytes", "model", {"": 1}, "bytes per parameter") if "gradient_bytes" in m else 2
    return model_layers(_number(r, m, "parameters", "model", _COUNT, "a parameter count (e.g. 20M)"), layers,
                        _number(r, m, "tokens", "model", _COUNT, "a token count (e.g. 16K)"),
                        _number(r, m, "flops", "model", _COUNT, "FLOP/s (e.g. 100T)"),
                        gradient_bytes=grad, tensor=tensor, microbatches=microbatches)


def _layers(r: Any, value: Any, line: int) -> list[Layer]:
    if not isinstance(value, list) or not value:
        raise r.err(line, "layers", "must be a list of layers")
    out: list[Layer] = []
    for i, item in enumerate(value):
        where = f"layers[{i}]"
        m = r.mapping(item, where, getattr(value, "line", line))
        r.unknown(m, {"count", "forward", "backward", "gradient", "activation"}, where)
        for key in ("forward", "backward", "gradient"):
            if key not in m:
                raise r.err(getattr(m, "line", line), where, f"needs '{key}'")
        layer = Layer(forward_ns=_time(r, m, "forward", where, 0), backward_ns=_time(r, m, "backward", where, 0),
                      gradient_bytes=_size(r, m, "gradient", where, 0) // 4 * 4,
                      activation_bytes=_size(r, m, "activation", where, 0) // 4 * 4)
        out += [layer] * _whole(r, m, "count", where, 1, 10_000)
    if len(out) > 10_000:
        raise r.err(line, "layers", f"{len(out)} layers; at most 10,000")
    return out
