"""Match-table benchmark: lookups per second of MatchTable against a baseline measured in the same run.

Scenarios: exact with 10k entries (baseline: a plain dict lookup on the same keys,
the floor for any Python exact match), lpm with 1k and 100k IPv4 prefixes and
ternary with 100 entries over 5 distinct masks (baseline: a naive linear scan of
every entry keeping the best, what a table without an index would do). Each
scenario checks that the baseline and MatchTable agree on a sample of keys, then
reports both rates and their ratio (MatchTable / baseline; above 1 is faster).

    python tools/bench_tables.py [--repeat N] [--lookups N] [--json]
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from typing import Any, Callable

from dataplane.engine.tables import MatchTable

MASK32 = 0xFFFFFFFF


def rate(fn: Callable[[tuple], Any], keys: list[tuple], repeat: int) -> float:
    """Best-of-``repeat`` lookups per second of ``fn`` over ``keys``."""
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        for k in keys:
            fn(k)
        best = min(best, time.perf_counter() - t)
    return len(keys) / best


def prefix_mask(plen: int) -> int:
    return MASK32 ^ ((1 << (32 - plen)) - 1)


def bench_exact(rng: random.Random, n_lookups: int, repeat: int) -> dict:
    keys = {(rng.getrandbits(32), rng.getrandbits(16)) for _ in range(10_000)}
    table = MatchTable([("exact", 32), ("exact", 16)])
    plain: dict[tuple, int] = {}
    for i, k in enumerate(keys):
        table.add(k, None, i)
        plain[k] = i
    hits = list(keys)
    # Fresh tuples, as a packet's key would be (a stored key object would short-cut equality).
    probes = [tuple(list(rng.choice(hits))) if rng.random() < 0.8 else (rng.getrandbits(32), 0)
              for _ in range(n_lookups)]
    get = plain.get
    check(table.lookup, get, probes[:2000])
    return row("exact", 10_000, "dict.get", rate(table.lookup, probes, repeat), rate(get, probes, repeat))


def lpm_prefixes(rng: random.Random, n: int) -> dict[tuple[int, int], int]:
    lengths = [8, 12, 16, 18, 20, 22, 23, 24, 24, 24, 24, 25, 28, 32]
    out: dict[tuple[int, int], int] = {}
    while len(out) < n:
        plen = rng.choice(lengths)
        out.setdefault((rng.getrandbits(32) & prefix_mask(plen), plen), len(out))
    return out


def bench_lpm(rng: random.Random, n: int, n_lookups: int, repeat: int) -> dict:
    prefixes = lpm_prefixes(rng, n)
    table = MatchTable([("lpm", 32)])
    for p, i in prefixes.items():
        table.add((p,), None, i)
    scan_list = [(v, prefix_mask(plen), plen, i) for (v, plen), i in prefixes.items()]

    def scan(key: tuple) -> Any:
        a = key[0]
        best_len, best = -1, None
        for v, m, plen, val in scan_list:
            if a & m == v and plen > best_len:
                best_len, best = plen, val
        return best

    inside = list(prefixes)
    probes = []
    for _ in range(n_lookups):
        if rng.random() < 0.8:
            v, plen = rng.choice(inside)
            probes.append((v | (rng.getrandbits(32 - plen) if plen < 32 else 0),))
        else:
            probes.append((rng.getrandbits(32),))
    scan_probes = probes[: max(20, n_lookups * 1000 // (n * 10))]
    check(table.lookup, scan, scan_probes[:200])
    return row("lpm", n, "linear scan", rate(table.lookup, probes, repeat), rate(scan, scan_probes, 1))


def bench_ternary(rng: random.Random, n_lookups: int, repeat: int) -> dict:
    masks = [MASK32, 0xFFFFFF00, 0xFFFF0000, 0xFF000000, 0x0000FFFF]
    table = MatchTable([("ternary", 32)])
    scan_list = []
    while len(table) < 100:
        m = rng.choice(masks)
        v = rng.getrandbits(32) & m
        prio = rng.randint(1, 50)
        if table.find(((v, m),), prio) is not None:
            continue
        table.add(((v, m),), prio, len(table))
        scan_list.append((v, m, prio, len(table) - 1))

    def scan(key: tuple) -> Any:
        a = key[0]
        best_prio, best = None, None
        for v, m, prio, val in scan_list:
            if a & m == v and (best_prio is None or prio > best_prio):
                best_prio, best = prio, val
        return best

    probes = []
    for _ in range(n_lookups):
        if rng.random() < 0.8:
            v, m, _, _ = rng.choice(scan_list)
            probes.append((v | (rng.getrandbits(32) & ~m & MASK32),))
        else:
            probes.append((rng.getrandbits(32),))
    check(table.lookup, scan, probes[:2000])
    return row("ternary (5 masks)", 100, "linear scan", rate(table.lookup, probes, repeat), rate(scan, probes, repeat))


def check(ours: Callable, baseline: Callable, keys: list[tuple]) -> None:
    for k in keys:
        a, b = ours(k), baseline(k)
        if a != b:
            raise SystemExit(f"MatchTable and baseline disagree on {k}: {a!r} != {b!r}")


def row(name: str, entries: int, baseline: str, ours: float, base: float) -> dict:
    return {"table": name, "entries": entries, "lookups_per_s": round(ours), "us_per_lookup": round(1e6 / ours, 2),
            "baseline": baseline, "baseline_lookups_per_s": round(base), "ratio": round(ours / base, 2)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--lookups", type=int, default=50_000, help="lookup keys per scenario")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    rows = [
        bench_exact(rng, args.lookups, args.repeat),
        bench_lpm(rng, 1_000, args.lookups, args.repeat),
        bench_lpm(rng, 100_000, args.lookups, args.repeat),
        bench_ternary(rng, args.lookups, args.repeat),
    ]
    if args.json:
        print(json.dumps({"rows": rows}))
        return 0
    print(f"{'table':18} {'entries':>8} {'lookups/s':>11} {'us/lookup':>9}  "
          f"{'baseline':12} {'lookups/s':>11} {'ratio':>7}")
    for r in rows:
        print(f"{r['table']:18} {r['entries']:>8} {r['lookups_per_s']:>11,} {r['us_per_lookup']:>9.2f}  "
              f"{r['baseline']:12} {r['baseline_lookups_per_s']:>11,} {r['ratio']:>7.2f}")
    print(f"best of {args.repeat}; ratio = MatchTable / baseline (same keys, same run); "
          "lpm scans use fewer keys, since a scan of 100k entries per lookup is slow")
    return 0


if __name__ == "__main__":
    sys.exit(main())
