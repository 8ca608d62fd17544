"""The RDMA workloads write the bytes they wrote before the host-side speed-ups (issue 36).

Every command of ``COMMANDS`` (the built-in scenarios that run RDMA senders: collectives,
training, load balancing, incast with DCQCN and HPCC) and both RDMA workloads of
``tools/bench_sim.py`` run here with every port of every network they build recording what it
sends (the time and bytes of each frame, as a pcap would). A run's fingerprint is the SHA-256
of those frames, port by port, of ``--json`` (wall-clock keys left out) and of the files
written under ``--out`` (not PNGs); ``data/pinned_outputs.json`` holds the fingerprints made
by the code before any of these levers (commit a4e80cd; the folder the programs lie in taken
out of the outputs, so that they hold in any clone or install). A lever that changed one frame, one
timestamp, one figure of a report fails here.

When a change of behaviour is meant, write the fingerprints again with
``python tests/net/rdma/test_outputs_pinned.py > tests/net/rdma/data/pinned_outputs.json``
and say why in the commit.
"""
from __future__ import annotations

import hashlib
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

PINNED = Path(__file__).parent / "data" / "pinned_outputs.json"
ROOT = Path(__file__).resolve().parents[3]
TOOLS = ROOT / "tools"
_PROGRAM_PATH = re.compile(r"/[^\s\"']*/(programs/[^\s/\"']+)")
DP4 = ("gpus: 4\nsteps: 2\nbucket: 256KiB\noptimizer: 10us\n"
       "model: {parameters: 400K, layers: 4, tokens: 8K, flops: 100T}\n")

COMMANDS: dict[str, list[str]] = {
    "collective-allreduce": ["collective", "allreduce", "--algo", "ring", "--topology", "fat-tree", "--k", "4",
                             "--sizes", "4K:64K", "--factor", "16", "--json", "--out", "{out}"],
    "collective-alltoall-dcqcn": ["collective", "alltoall", "--algo", "direct", "--topology", "leaf-spine",
                                  "--sizes", "256K:256K",
                         "--cc", "dcqcn", "--json"],
    "training": ["scenario", "training", "{job}", "--topology", "leaf-spine", "--what-if", "straggler", "--json",
                 "--out", "{out}"],
    "loadbalance": ["scenario", "loadbalance", "--lb", "ecmp,spray", "--event", "none", "--size", "256KiB",
                    "--receiver", "gbn,sack", "--json", "--out", "{out}"],
    "loadbalance-hpcc": ["scenario", "loadbalance", "--lb", "ecmp", "--event", "none", "--size", "256KiB",
                         "--cc", "hpcc", "--json"],
    "loadbalance-dcqcn": ["scenario", "loadbalance", "--lb", "ecmp", "--event", "none", "--size", "256KiB",
                          "--cc", "dcqcn", "--json"],
    "incast": ["scenario", "incast", "--senders", "2", "--mode", "all", "--transfer", "400KB", "--buffer", "300KB",
               "--json", "--out", "{out}"],
    "incast-both": ["scenario", "incast", "--senders", "4", "--mode", "ecn", "--transfer", "1MB", "--cc", "both",
                    "--json"],
}
BENCH = {"bench-rdma-perm": ("rdma-perm", 0.02), "bench-incast": ("incast", 0.05)}


class _FrameDigest:
    """Stands in for a port's PcapWriter: hashes what the port sends instead of writing it."""

    def __init__(self) -> None:
        self.sha = hashlib.sha256()
        self.frames = 0

    def write(self, time_ns: int, data: bytes) -> None:
        self.sha.update(time_ns.to_bytes(8, "big") + len(data).to_bytes(4, "big"))
        self.sha.update(data)
        self.frames += 1

    def flush(self) -> None:
        pass

    close = flush


class _Recorder:
    """Every port made while it is on records its frames (``Port.capture``)."""

    def __init__(self) -> None:
        self.ports: list[tuple[str, _FrameDigest]] = []

    def __enter__(self) -> "_Recorder":
        from dataplane.net.devices.link import Port

        self._init = init = Port.__init__
        recorder = self

        def recording(port: Any, *args: Any, **kwargs: Any) -> None:
            init(port, *args, **kwargs)
            port.capture = _FrameDigest()
            recorder.ports.append((port.name, port.capture))

        Port.__init__ = recording     # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: Any) -> None:
        from dataplane.net.devices.link import Port

        Port.__init__ = self._init    # type: ignore[method-assign]

    def fingerprint(self) -> str:
        sha = hashlib.sha256()
        for name, d in self.ports:
            sha.update(f"{name} {d.frames} {d.sha.hexdigest()}\n".encode())
        return sha.hexdigest()


def _steady(value: Any) -> Any:
    """``value`` without what differs between two honest runs: wall-clock keys, the provenance
    (the command line with its temporary folders) and where the package lies (a report names each
    switch's program by its path: a clone's programs/, or site-packages' when installed), so
    that the fingerprints hold in any checkout and install."""
    if isinstance(value, dict):
        return {k: _steady(v) for k, v in value.items() if "wall" not in k and k != "provenance"}
    if isinstance(value, list):
        return [_steady(v) for v in value]
    if isinstance(value, str):
        return _PROGRAM_PATH.sub(r"\1", value)
    return value


def run_command(name: str, work: Path) -> dict[str, Any]:
    """The fingerprint of one command of ``COMMANDS``: its frames, its ``--json``, its files."""
    from click.testing import CliRunner

    from dataplane.cli import main

    job, out = work / "job.yaml", work / "out"
    job.write_text(DP4)
    args = [a.format(job=job, out=out) for a in COMMANDS[name]]
    with _Recorder() as rec:
        result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output[-3000:]
    files = hashlib.sha256()
    for p in sorted(out.rglob("*")) if out.exists() else []:
        if p.is_file() and p.suffix not in (".png", ".html"):
            data = p.read_bytes()
            if p.suffix == ".json":
                data = json.dumps(_steady(json.loads(data)), sort_keys=True).encode()
            files.update(f"{p.relative_to(out)}\n".encode() + data)
    stdout = json.dumps(_steady(json.loads(result.stdout)), sort_keys=True).encode()
    return {"frames": rec.fingerprint(), "ports": len(rec.ports), "json": hashlib.sha256(stdout).hexdigest(),
            "files": files.hexdigest()}


def run_bench(name: str) -> dict[str, Any]:
    """The fingerprint of a bench_sim RDMA workload at a small scale: its frames and hop count."""
    sys.path.insert(0, str(TOOLS))
    try:
        import bench_sim
    finally:
        sys.path.remove(str(TOOLS))
    workload, scale = BENCH[name]
    with _Recorder() as rec:
        net = bench_sim.BUILDERS[workload](int(bench_sim.SIZE[workload] * scale))
    net.run(None)
    return {"frames": rec.fingerprint(), "ports": len(rec.ports), "packet_hops": bench_sim.hops(net),
            "sim_time_ns": net.sim.now}


def fingerprint(name: str) -> dict[str, Any]:
    if name in BENCH:
        return run_bench(name)
    with tempfile.TemporaryDirectory() as d:
        return run_command(name, Path(d))


@pytest.mark.parametrize("name", [*COMMANDS, *BENCH])
def test_outputs_are_the_bytes_pinned_before_the_speed_ups(name):
    pinned = json.loads(PINNED.read_text())[name]
    got = fingerprint(name)
    assert got["ports"] > 0 and pinned["ports"] == got["ports"]
    assert got == pinned, f"{name}: outputs differ from the pinned ones ({got} against {pinned})"


def test_a_changed_frame_changes_the_fingerprint():
    """The fingerprint sees one byte of one frame, and one nanosecond of its time."""
    a, b, c = _FrameDigest(), _FrameDigest(), _FrameDigest()
    a.write(10, b"\x00" * 64)
    b.write(10, b"\x00" * 63 + b"\x01")
    c.write(11, b"\x00" * 64)
    assert len({a.sha.hexdigest(), b.sha.hexdigest(), c.sha.hexdigest()}) == 3


if __name__ == "__main__":
    print(json.dumps({name: fingerprint(name) for name in [*COMMANDS, *BENCH]}, indent=1))
