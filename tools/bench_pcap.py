"""Packets per second of ``dataplane run-packet --pcap`` end to end, and of pcap reading and
writing alone, next to scapy's reader and writer measured in the same run.

The workload: the built-in IPv4 router (programs/ipv4_router.p4) with 1,000 LPM routes (the
same routes as tools/bench_pps.py), and a capture of 64-byte IPv4/UDP packets to addresses
those routes cover (1M by default), made here with numpy. Timed:

- ``run-packet``: the ``dataplane run-packet ipv4_router --entries ... --pcap IN --out DIR``
  command as a user runs it (a process: start-up, compile, read, process, write), once per
  engine when run-packet has ``--engine``, and on each engine that splits a capture with
  ``--jobs 1`` too when it has ``--jobs`` (its default runs up to 2 processes; their output
  pcaps are all compared byte for byte), wall clock and CPU time of the command and the workers it forks (the best of ``--repeat``; the first run of a program fills the
  compile cache, so with ``--repeat 2`` or more the best is a run that found it there);
- reading alone: scapy's ``RawPcapReader`` (the baseline), ``dataplane.pcap.iter_packets``
  and ``dataplane.pcap.read_batches``;
- writing alone: scapy's ``RawPcapWriter`` (the writing baseline), ``PcapWriter.write`` one
  packet at a time and ``PcapWriter.write_batch`` in bulk.

Ratios are packets/s over scapy's reader's (or writer's) packets/s in the same run.

    python tools/bench_pcap.py [--packets N] [--repeat N] [--json] [--keep DIR]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_pps import make_routes  # noqa: E402  (tools/ is not a package)

from dataplane.pcap import PcapWriter, iter_packets, read_batches  # noqa: E402
from dataplane.pcap.batch import BATCH  # noqa: E402

SIZE = 64


def ip_text(addr: int) -> str:
    return ".".join(str((addr >> s) & 255) for s in (24, 16, 8, 0))


def write_entries(path: Path, routes) -> None:
    """The routes as a simple_switch_CLI command file."""
    lines = [f"table_add ipv4_lpm ipv4_forward {ip_text(prefix)}/{plen} => "
             f"{':'.join(f'{(mac >> s) & 255:02x}' for s in range(40, -8, -8))} {port}"
             for prefix, plen, mac, port in routes]
    path.write_text("\n".join(lines) + "\n")


def make_batch(routes, count: int, seed: int = 1) -> np.ndarray:
    """``count`` 64-byte Ethernet/IPv4/UDP packets, (count, 64) uint8, to addresses the routes cover."""
    rng = np.random.default_rng(seed)
    prefix = np.array([r[0] for r in routes], dtype=np.uint64)
    plen = np.array([r[1] for r in routes], dtype=np.uint64)
    pick = np.arange(count) % len(routes)
    host_mask = (np.uint64(1) << (np.uint64(32) - plen[pick])) - np.uint64(1)
    dst = (prefix[pick] | (rng.integers(0, 1 << 32, count, dtype=np.uint64) & host_mask)).astype(np.uint32)
    ip_len = SIZE - 14
    template = (bytes.fromhex("000000000002 000000000001 0800".replace(" ", ""))
                + bytes.fromhex("4500") + ip_len.to_bytes(2, "big") + bytes.fromhex("00010000 4011 0000 c0a80001")
                + bytes(4) + (1000).to_bytes(2, "big") + (2000).to_bytes(2, "big")
                + (ip_len - 20).to_bytes(2, "big") + bytes(2 + SIZE - 42))
    data = np.tile(np.frombuffer(template, dtype=np.uint8), (count, 1))
    data[:, 30:34] = dst.astype(">u4").view(np.uint8).reshape(count, 4)
    words = data[:, 14:34].copy().view(">u2").astype(np.uint32).sum(axis=1)
    while (words >> 16).any():
        words = (words & 0xFFFF) + (words >> 16)
    data[:, 24:26] = (~words & 0xFFFF).astype(">u2").view(np.uint8).reshape(count, 2)
    return data


def best(fn, repeat: int) -> float:
    t_best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        t_best = min(t_best, time.perf_counter() - t)
    return t_best


def engines() -> list[tuple[str, list[str]]]:
    """(name, options) of each way to run ``run-packet`` timed: per engine when it has
    ``--engine`` (none when it has no such option), and each engine that splits a capture on
    one job as well as on its default number when it has ``--jobs`` (``batch_jobs1``,
    ``packet_jobs1``)."""
    out = subprocess.run([sys.executable, "-m", "dataplane", "run-packet", "--help"], capture_output=True, text=True)
    if "--engine" not in out.stdout:
        return []
    found = [(e, ["--engine", e]) for e in ("packet", "batch")
             if e in out.stdout.split("--engine", 1)[1].split("\n  -", 1)[0]]
    if "--jobs" in out.stdout:     # each engine on one job too (per packet: since it splits too)
        found += [(f"{name}_jobs1", options + ["--jobs", "1"]) for name, options in list(found)
                  if name == "batch" or "either engine" in " ".join(out.stdout.split())]
    return found


def run(count: int, repeat: int, workdir: Path) -> dict:
    routes = make_routes(__import__("random").Random(1))
    entries = workdir / "routes.txt"
    write_entries(entries, routes)
    data = make_batch(routes, count)
    lengths = np.full(count, SIZE, dtype=np.int64)
    stamps = np.arange(count, dtype=np.int64) * 1000
    capture = workdir / "in.pcap"
    with PcapWriter(capture) as w:
        w.write_batch(data, lengths, stamps)
    r: dict = {"packets": count, "bytes_per_packet": SIZE, "python": platform.python_implementation(),
               "batch_size": BATCH}

    # ---- reading alone
    from scapy.utils import RawPcapReader, RawPcapWriter

    def scapy_read():
        with RawPcapReader(str(capture)) as rd:
            for _ in rd:
                pass

    def our_read():
        for _ in iter_packets(capture):
            pass

    def our_batches():
        for _ in read_batches(capture):
            pass

    reads = {"scapy_read": scapy_read, "read": our_read, "batch_read": our_batches}
    times = {k: best(f, repeat) for k, f in reads.items()}

    # ---- writing alone
    packets = [bytes(row) for row in data[:count]]
    out = workdir / "w.pcap"

    def scapy_write():
        with RawPcapWriter(str(out), linktype=1, nano=True) as w:
            w.write_header(None)
            for i, p in enumerate(packets):
                w.write_packet(p, sec=i // 1_000_000, usec=i * 1000 % 1_000_000_000)

    def our_write():
        with PcapWriter(out) as w:
            for i, p in enumerate(packets):
                w.write(p, i * 1000)

    def our_batch_write():
        with PcapWriter(out) as w:
            for s in range(0, count, BATCH):
                w.write_batch(data[s:s + BATCH], lengths[s:s + BATCH], stamps[s:s + BATCH])

    writes = {"scapy_write": scapy_write, "write": our_write, "batch_write": our_batch_write}
    times.update({k: best(f, repeat) for k, f in writes.items()})
    packets.clear()   # frees them (a del would leave the writers above naming nothing)
    for k, t in times.items():
        r[f"{k}_pps"] = round(count / t)
    for k in ("read", "batch_read"):
        r[f"{k}_ratio"] = round(r[f"{k}_pps"] / r["scapy_read_pps"], 2)
    for k in ("write", "batch_write"):
        r[f"{k}_ratio"] = round(r[f"{k}_pps"] / r["scapy_write_pps"], 2)

    # ---- run-packet end to end, per engine
    digests = {}
    for name, options in engines() or [("default", [])]:
        outdir = workdir / f"out-{name}"
        cmd = [sys.executable, "-m", "dataplane", "run-packet", "ipv4_router", "--entries", str(entries),
               "--pcap", str(capture), "--out", str(outdir)] + options
        t_best = cpu_best = float("inf")
        for _ in range(repeat):
            shutil.rmtree(outdir, ignore_errors=True)
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = time.perf_counter()
            done = subprocess.run(cmd, capture_output=True, text=True)
            t_best = min(t_best, time.perf_counter() - t)
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu_best = min(cpu_best, r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
            if done.returncode != 0:
                raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr}")
        summary = json.loads((outdir / "summary.json").read_text())
        if summary["packets_in"] != count or summary["drops"] != 0:
            raise SystemExit(f"run-packet ({name}): {summary}: expected every packet forwarded")
        digests[name] = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(outdir.glob("*.pcap"))}
        r[f"run_packet_{name}_pps"] = round(count / t_best)
        r[f"run_packet_{name}_ratio"] = round(count / t_best / r["scapy_read_pps"], 3)
        # CPU time (user + system) of the command: on a shared machine the wall clock counts
        # other people's work too; this does not.
        r[f"run_packet_{name}_cpu_s"] = round(cpu_best, 3)
        r[f"run_packet_{name}_cpu_pps"] = round(count / cpu_best)
    if len(digests) > 1:
        r["engines_identical"] = len({json.dumps(d, sort_keys=True) for d in digests.values()}) == 1
        if not r["engines_identical"]:
            raise SystemExit("run-packet: the engines' output pcaps differ")
    return r


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--packets", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=1, help="timed passes of each; the best counts")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--keep", type=Path, help="make the files here and leave them (default: a temporary folder)")
    args = ap.parse_args()
    if args.packets < 1 or args.repeat < 1:
        ap.error("--packets and --repeat must be at least 1")
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        r = run(args.packets, args.repeat, args.keep)
    else:
        with tempfile.TemporaryDirectory(prefix="bench_pcap-") as d:
            r = run(args.packets, args.repeat, Path(d))
    if args.json:
        print(json.dumps(r))
        return 0
    print(f"{r['packets']:,} packets of {SIZE} bytes, {r['python']}")
    print(f"read   scapy RawPcapReader  {r['scapy_read_pps']:>12,} pkt/s  (baseline)")
    print(f"read   iter_packets         {r['read_pps']:>12,} pkt/s  x{r['read_ratio']}")
    print(f"read   read_batches         {r['batch_read_pps']:>12,} pkt/s  x{r['batch_read_ratio']}")
    print(f"write  scapy RawPcapWriter  {r['scapy_write_pps']:>12,} pkt/s  (writing baseline)")
    print(f"write  PcapWriter.write     {r['write_pps']:>12,} pkt/s  x{r['write_ratio']}")
    print(f"write  write_batch          {r['batch_write_pps']:>12,} pkt/s  x{r['batch_write_ratio']}")
    for k in r:
        if k.startswith("run_packet_") and k.endswith("_pps") and not k.endswith("_cpu_pps"):
            name = k[len("run_packet_"):-len("_pps")]
            print(f"run-packet ({name:11}) end to end {r[k]:>10,} pkt/s  x{r[f'run_packet_{name}_ratio']} "
                  f"of scapy's reading alone; CPU {r[f'run_packet_{name}_cpu_s']} s "
                  f"({r[f'run_packet_{name}_cpu_pps']:,} pkt/s of CPU time)")
    if "engines_identical" in r:
        print(f"engines' output pcaps identical: {r['engines_identical']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
