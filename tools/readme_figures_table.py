"""The figures tools/readme_figures.py re-measures: each command once (``MEASUREMENTS``), and
for every figure the documentation (README.md and the site's pages under docs/) quotes from it,
the pattern that finds the quoted values in the text and how the command's result is written the
same way (``figures()``)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from functools import partial
from typing import Any, Callable


@dataclass
class Measurement:
    """One command; ``argv`` after ``dataplane`` (or a tool's path under ``python``). ``reads``
    says where its results are: ``stdout`` (text), ``json`` (stdout as JSON) or a file name the
    command writes in the folder it is given with ``--out``."""
    name: str
    argv: tuple[str, ...]
    reads: str = "json"
    tool: bool = False            # argv[0] is a script under tools/
    needs: tuple[str, ...] = ()   # programs on PATH it needs, else skipped

    def shown(self) -> str:
        head = f"python {self.argv[0]}" if self.tool else "dataplane"
        rest = self.argv[1:] if self.tool else self.argv
        out = " --out DIR" if self.reads not in ("json", "stdout") else ""
        return " ".join([head, *rest]) + out


@dataclass
class Figure:
    """Values quoted in ``doc`` where ``pattern`` matches (its groups), made by ``measurement``:
    ``values(result)`` formats them as the text does; with ``uses`` (more measurements: the seeds
    of a range) ``values`` gets a dict of every one's result by name instead. ``cpu``: seconds of CPU time
    the command itself took, checked within readme_figures.TIME_SPREAD (``values`` is not used)."""
    doc: str
    what: str
    pattern: str
    measurement: str
    values: Callable[[Any], list[str]] = field(default=lambda _r: [])
    cpu: bool = False
    uses: tuple[str, ...] = ()

    def measurements(self) -> tuple[str, ...]:
        return (self.measurement, *self.uses)


# ---- formatting as the documents write numbers ------------------------------------------------------------

def fixed(x: float, places: int) -> str:
    """``x`` to ``places`` decimals, as the commands print their figures (Python's format)."""
    return f"{x:.{places}f}"


def by_hand(printed: str, places: int) -> str:
    """A printed decimal rounded again to ``places``, halves up, as a person rounds it for a table
    (the pic table prints 1.125 ms and 1.062 ms; the documents quote 1.13 and 1.06)."""
    return str(Decimal(printed).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def thousands(n: int) -> str:
    return f"{n:,}"


def pct(x: float, places: int = 1) -> str:
    return fixed(x * 100, places)


def sig3(x: float) -> str:
    """Three significant digits, thousands separated, as "15,800" or "35.0" or "345"."""
    if x == 0:
        return "0"
    digits = 3 - len(str(int(abs(x)))) if abs(x) >= 1 else 2 - int(f"{abs(x):e}".split("e")[1])
    if digits <= 0:
        return thousands(int(Decimal(repr(x)).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)))
    return fixed(x, digits)


def pic_time(ns: int) -> str:
    """The pic table's convergence as the documents round what the scenario prints (3 decimals of
    ms or s): ms to 2 decimals below 10 ms, 3 significant digits below 1 s, s to 2 decimals above."""
    if ns >= 1_000_000_000:
        return f"{by_hand(fixed(ns / 1e9, 3), 2)} s"
    printed = fixed(ns / 1e6, 3)
    return f"{by_hand(printed, 2) if ns < 10_000_000 else sig3(float(printed))} ms"


def mb(n: float) -> str:
    """Queue bytes in MB: 2 decimals below 10 MB, 1 above (the incast tables)."""
    return fixed(n / 1e6, 2 if n < 10e6 else 1)


def span(values: list[float], fmt: Callable[[float], str]) -> str:
    """``low-high`` as the text writes a range over seeds (one value when they agree)."""
    lo, hi = fmt(min(values)), fmt(max(values))
    return lo if lo == hi else f"{lo}-{hi}"


def normalised(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def text_groups(pattern: str) -> Callable[[Any], list[str]]:
    """For a command that prints text: the same pattern's groups in the command's output."""
    def values(text: Any) -> list[str]:
        m = re.search(pattern, normalised(text))
        return list(m.groups()) if m else ["(not in the output)"]
    return values


# ---- what is measured -----------------------------------------------------------------------------------

MEASUREMENTS = [
    Measurement("allreduce", ("scenario", "allreduce", "--workers", "8", "--elements", "1000000"), "results.json"),
    Measurement("allreduce-loss", ("scenario", "allreduce", "--workers", "8", "--elements", "1000000",
                                   "--mode", "ina", "--loss", "0.01"), "results.json"),
    Measurement("allreduce-4", ("scenario", "allreduce", "--workers", "4", "--elements", "20000"), "results.json"),
    Measurement("vxlan", ("scenario", "vxlan"), "stdout"),
    Measurement("bench-vxlan", ("tools/bench_vxlan.py", "--json"), tool=True),
    Measurement("pic", ("tools/bench_pic.py", "--json"), tool=True),
    Measurement("incast", ("tools/bench_incast.py", "--json"), tool=True),
    *[Measurement(f"incast-seed{s}", ("tools/bench_incast.py", "--modes", "ecn,ecn+pfc", "--seed", str(s), "--json"),
                  tool=True) for s in (2, 3)],
    # tests/scenarios/test_incast.py's size: 4 senders x 16 MB into an 8.2 MB buffer
    *[Measurement(f"incast-4-seed{s}", ("tools/bench_incast.py", "--senders", "4", "--transfer", "16MB", "--buffer",
                                        "8200KB", "--modes", "droptail,ecn" if s == 1 else "ecn", "--seed", str(s),
                                        "--json"), tool=True)
      for s in (1, 2, 3)],
    # docs/ecn.md's profiles side by side (htsim, the default, is the seeds above)
    *[Measurement(f"incast-{p}-seed{s}", ("tools/bench_incast.py", "--modes", "ecn", "--profile", p, "--seed", str(s),
                                          "--json"), tool=True)
      for p in ("dcqcn-paper", "ns3-rdma", "hpcc-dcqcn-paper", "hpcc-dcqcn") for s in (1, 2, 3)],
    Measurement("pfc-deadlock", ("scenario", "pfc-deadlock", "--json")),
    Measurement("pfc-deadlock-forward", ("scenario", "pfc-deadlock", "--action", "forward", "--json")),
    Measurement("bench-parallel", ("tools/bench_parallel.py", "--json"), tool=True, needs=("mpiexec",)),
]


def _ar(r: Any, mode: str) -> dict:
    return next(x for x in r["results"] if x["mode"] == mode)


def _incast(r: Any, mode: str) -> dict:
    return next(x for x in r["results"] if x["mode"] == mode)


def _incast_row(mode: str, r: Any) -> list[str]:
    """docs/programs.md's incast row: util, after 2 ms, drops, pause frames, CNPs, queue p50/p99/max, completion."""
    x = _incast(r, mode)
    done = (f"{fixed(x['completion_ns'] / 1e6, 2)} ms" if x["completion_ns"] is not None
            else f"never ({pct(x['delivered_fraction'])}% delivered)")
    steady = f"{pct(x['utilisation_steady'])}%" if x["utilisation_steady"] is not None else "-"
    return [f"{pct(x['utilisation'])}%", steady, thousands(x["drops"]), thousands(x["pause_frames"]),
            thousands(x["cnps"]), mb(x["qdepth_p50_bytes"]), mb(x["qdepth_p99_bytes"]), mb(x["qdepth_max_bytes"]), done]


def _incast_doc_row(mode: str, r: Any) -> list[str]:
    """docs/ecn.md's row: docs/programs.md's, plus the queue in band, Jain's index and what was delivered."""
    x = _incast(r, mode)
    row = _incast_row(mode, r)
    band = f"{pct(x['queue_in_band_fraction'], 0)}%" if x["kmin_bytes"] is not None else "-"   # no band without ECN
    done = f"{fixed(x['completion_ns'] / 1e6, 2)} ms" if x["completion_ns"] is not None else "never"
    delivered = f"{pct(x['delivered_fraction'])}%" if x["delivered_fraction"] < 1 else "100%"
    return [*row[:2], band, *row[2:8], fixed(x["jain"], 3), fixed(x["jain_short_term"] or 0, 3), done, delivered]


def _seeds(results: dict[str, Any], names: list[str], mode: str) -> list[dict]:
    return [_incast(results[n], mode) for n in names]


SEEDS_16 = ("incast", "incast-seed2", "incast-seed3")
SEEDS_4 = ("incast-4-seed1", "incast-4-seed2", "incast-4-seed3")


def _profile_seeds(profile: str) -> tuple[str, ...]:
    return SEEDS_16 if profile == "htsim" else tuple(f"incast-{profile}-seed{s}" for s in (1, 2, 3))


def _queue_span(values: list[float]) -> str:
    """docs/ecn.md's queue p50 over seeds: KB while every seed is under 1 MB, else MB to 2 places."""
    if max(values) < 1e6:
        return f"{span(values, lambda v: fixed(v / 1000, 0))} KB"
    return f"{span(values, lambda v: fixed(v / 1e6, 2))} MB"


def _profile_row(profile: str, r: Any) -> list[str]:
    """docs/ecn.md's profile row over seeds 1-3: util, after 2 ms, queue in band, queue p50, completion."""
    xs = _seeds(r, list(_profile_seeds(profile)), "ecn")
    if all(x["completion_ns"] is not None for x in xs):
        done = f"{span([x['completion_ns'] / 1e6 for x in xs], lambda v: fixed(v, 2))} ms"
    elif all(x["completion_ns"] is None for x in xs):
        done = f"never ({span([x['drops'] for x in xs], thousands)} drops)"
    else:
        done = "some seeds never"
    return [span([x["utilisation"] for x in xs], pct), span([x["utilisation_steady"] for x in xs], pct),
            span([x["queue_in_band_fraction"] for x in xs], lambda v: pct(v, 0)),
            _queue_span([x["qdepth_p50_bytes"] for x in xs]), done]


def _pfc(r: Any, mode: str) -> dict:
    return next(x for x in r if x["mode"] == mode)


def _storm_us(x: dict, what: str) -> str:
    times = {int(e.split(" ns ")[0]) for e in x["watchdog_events"] if e.endswith(what)}
    return ",".join(fixed(t / 1000, 1) for t in sorted(times))


def _pfc_row(mode: str, r: Any) -> list[str]:
    """docs/pfc-deadlock.md's row: delivered, deadlocked ports, probes, storms, restorations,
    watchdog drops, pause frames, tail drops."""
    x = _pfc(r, mode)
    return [thousands(x["delivered_bytes"]), thousands(x["sent_bytes"]), str(len(x["deadlocked_ports"])),
            thousands(x["probe_delivered_bytes"]), thousands(x["probe_bytes"]), str(x["storms"]), str(x["restorations"]),
            f"{thousands(x['storm_drops'])} pkts" if x["storm_drops"] else "0", str(x["pause_frames"]),
            str(x["tail_drops"])]


def _pic_row(prefixes: int, r: Any) -> list[str]:
    """The pic table's row: writes and convergence of flat, pic and dataplane."""
    by = {x["mode"]: x for x in r["results"] if x["prefixes"] == prefixes}
    return [v for mode in ("flat", "pic", "dataplane")
            for v in (thousands(by[mode]["writes"]), pic_time(by[mode]["convergence_ns"]))]


def _vx_mode(row: dict, mode: str) -> dict:
    return row["modes"][mode]


def _vx_full_row(mode: str, r: Any) -> list[str]:
    """docs/vxlan.md's full-size row of ``mode``."""
    x = _vx_mode(r["full"], mode)
    return [thousands(x["delivered"]), thousands(x["sent"]), str(x["cross_tenant_leaks"]), str(x["dropped_unknown_vni"]),
            str(x["injected_unknown_vni"]), " / ".join(fixed(v, 2) for v in x["spine_share"].values()),
            str(round(x["host_cores"])), fixed(x["host_cores_per_host"], 0 if mode == "offload" else 1),
            f"{pct(x['dpu_utilisation_mean'])}%" if mode == "offload" else "-"]


def _vx_sweep_row(i: int, r: Any) -> list[str]:
    """docs/vxlan.md's offered-load row ``i``: cores per server, DPU utilisation (load), delays."""
    x = r["sweep"][i]
    return [fixed(x["host_cores_software"] / x["hosts"], 1), pct(x["dpu_utilisation_mean"]), pct(x["dpu_load_mean"]),
            fixed(_vx_mode(x, "offload")["mean_delay_ns"] / 1000, 2),
            fixed(_vx_mode(x, "software")["mean_delay_ns"] / 1000, 2)]


_VXLAN_ROW = r"2 100 {mode} (\d+/\d+) (\d+) (\d+/\d+) ([\d./]+) ([\d.]+) ([\d.]+) ([\d.]+% / [\d.]+%|-) [\d.]+ s"


def figures() -> list[Figure]:
    return [
        # ---- in-network allreduce -------------------------------------------------------------------------
        Figure("docs/programs.md", "allreduce: ina and ring completion, speedup",
               r"in-network (\S+) ms against ring (\S+) ms, a speedup of (\S+)x", "allreduce",
               lambda r: [fixed(_ar(r, "ina")["completion_ns"] / 1e6, 3), fixed(_ar(r, "ring")["completion_ns"] / 1e6, 3),
                          fixed(r["speedup"], 3)]),
        Figure("docs/programs.md", "allreduce: ina's largest error and its bound",
               r"max absolute error (\S+) against the float64 sum \(bound (\S+)\)", "allreduce",
               lambda r: [f"{_ar(r, 'ina')['max_abs_error']:.1e}", f"{_ar(r, 'ina')['error_bound']:.1e}"]),
        Figure("docs/programs.md", "allreduce with 1% loss: completion, retransmissions",
               r"within the bound \((\S+) ms, ([\d,]+) retransmissions", "allreduce-loss",
               lambda r: [fixed(_ar(r, "ina")["completion_ns"] / 1e6, 3), thousands(_ar(r, "ina")["retransmissions"])]),
        Figure("docs/allreduce.md", "allreduce table: ina",
               r"\| ina \| (\S+) ms \| (\S+) Gbps \| (\S+) \((\S+)\) \| (\S+) \|", "allreduce",
               lambda r: [fixed(_ar(r, "ina")["completion_ns"] / 1e6, 3), fixed(_ar(r, "ina")["algbw_gbps"], 2),
                          f"{_ar(r, 'ina')['max_abs_error']:.1e}", f"{_ar(r, 'ina')['error_bound']:.1e}",
                          thousands(_ar(r, "ina")["retransmissions"])]),
        Figure("docs/allreduce.md", "allreduce table: ring",
               r"\| ring \| (\S+) ms \| (\S+) Gbps \| (\S+) \| (\S+) \|", "allreduce",
               lambda r: [fixed(_ar(r, "ring")["completion_ns"] / 1e6, 3), fixed(_ar(r, "ring")["algbw_gbps"], 2),
                          f"{_ar(r, 'ring')['max_abs_error']:.1e}", thousands(_ar(r, "ring")["retransmissions"])]),
        Figure("docs/allreduce.md", "allreduce table: ina with 1% loss",
               r"\| ina, 1% loss per link \| (\S+) ms \| (\S+) Gbps \| (\S+) \| (\S+) \|", "allreduce-loss",
               lambda r: [fixed(_ar(r, "ina")["completion_ns"] / 1e6, 3), fixed(_ar(r, "ina")["algbw_gbps"], 2),
                          f"{_ar(r, 'ina')['max_abs_error']:.1e}", thousands(_ar(r, "ina")["retransmissions"])]),
        Figure("docs/allreduce.md", "allreduce: speedup", r"Speedup ina/ring = (\S+)x", "allreduce",
               lambda r: [fixed(r["speedup"], 3)]),
        Figure("docs/allreduce.md", "allreduce: 4 workers, 20,000 elements",
               r"at 4 workers and 20,000 elements the speedup is (\S+) ", "allreduce-4", lambda r: [fixed(r["speedup"], 3)]),
        Figure("docs/allreduce.md", "allreduce: both modes' CPU time", r"both modes takes about (\d+) s of CPU time",
               "allreduce", cpu=True),
        # ---- VXLAN ------------------------------------------------------------------------------------------
        *[Figure(doc, f"vxlan default command: the {mode} row (wall column left out)",
                 _VXLAN_ROW.format(mode=mode), "vxlan", text_groups(_VXLAN_ROW.format(mode=mode)))
          for doc in ("docs/programs.md", "docs/vxlan.md") for mode in ("offload", "software")],
        *[Figure(doc, "vxlan default command: its CPU time", r"500 us\) takes about (\d+) s of CPU time", "vxlan",
                 cpu=True)
          for doc in ("docs/programs.md", "docs/vxlan.md")],
        Figure("docs/programs.md", "bench_vxlan full size: packets, unknown VNI, spine share, cores, DPU",
               r"deliver all ([\d,]+) packets with no leak, (\d+) of (\d+) unknown-VNI frames dropped, (\S+) of the "
               r"VXLAN packets on each spine, ([\d,]+) host cores \((\d+) per server\) in software against (\d+) "
               r"with offload and the DPUs (\d+)% busy", "bench-vxlan",
               lambda r: [thousands(r["full"]["delivered"]), str(r["full"]["dropped_unknown_vni"]),
                          str(r["full"]["injected_unknown_vni"]), fixed(min(r["full"]["spine_share"].values()), 2),
                          thousands(round(r["full"]["host_cores_software"])),
                          str(round(_vx_mode(r["full"], "software")["host_cores_per_host"])),
                          str(round(r["full"]["host_cores_offload"])), pct(r["full"]["dpu_utilisation_mean"], 0)]),
        Figure("docs/programs.md", "bench_vxlan offered load: cores per Gbit/s, per server, DPU busy, delay",
               r"software needs (\S+) cores per Gbit/s \((\d+) to (\d+) per server\); the DPU's one pipeline for "
               r"both directions is (\d+)% busy at 200 Gbps each way \((\d+)% of the work offered: its queue grows\), "
               r"and offload adds ~(\d+) us", "bench-vxlan",
               lambda r: [fixed(r["sweep"][2]["host_cores_software"] / r["sweep"][2]["hosts"] / 100, 2),
                          str(round(r["sweep"][0]["host_cores_software"] / r["sweep"][0]["hosts"])),
                          str(round(r["sweep"][-1]["host_cores_software"] / r["sweep"][-1]["hosts"])),
                          pct(r["sweep"][-1]["dpu_utilisation_mean"], 0), pct(r["sweep"][-1]["dpu_load_mean"], 0),
                          str(round((_vx_mode(r["sweep"][2], "offload")["mean_delay_ns"]
                                     - _vx_mode(r["sweep"][2], "software")["mean_delay_ns"]) / 1000))]),
        Figure("docs/programs.md", "bench_vxlan, 3 spines: the split", r"64 cross-leaf flows it is (\S+) / (\S+) / (\S+)\.",
               "bench-vxlan", lambda r: [fixed(v, 2) for v in r["three_spines"]["spine_share"].values()]),
        *[Figure(doc, "bench_vxlan: its CPU time", r"bench_vxlan.py --plot docs/vxlan.png` \(about (\d+) s of CPU "
                 r"time", "bench-vxlan", cpu=True) for doc in ("docs/programs.md", "docs/vxlan.md")],
        *[Figure("docs/vxlan.md", f"bench_vxlan full size: the {mode} row",
                 rf"\| {mode} \| ([\d,]+) / ([\d,]+) \| (\d+) \| (\d+) / (\d+) \| ([\d. /]+) \| (\S+) \((\S+)\) \| (\S+) \|",
                 "bench-vxlan", partial(_vx_full_row, mode))
          for mode in ("offload", "software")],
        *[Figure("docs/vxlan.md", f"bench_vxlan offered load: {gbps} Gbps per VM",
                 rf"\| {gbps} \| (\S+) \| (\S+)% \((\S+)%\) \| (\S+) / (\S+) us \|", "bench-vxlan",
                 partial(_vx_sweep_row, i))
          for i, gbps in enumerate((25, 50, 100, 150, 200))],
        *[Figure("docs/vxlan.md", f"bench_vxlan, 3 spines: the split ({where})", pattern, "bench-vxlan",
                 lambda r: [fixed(v, 3) for v in r["three_spines"]["spine_share"].values()])
          for where, pattern in (("Figures", r"Three spines \(8 servers, 500 us\): (\S+) / (\S+) / (\S+) in both"),
                                 ("ECMP entropy", r"statistical: (\S+) / (\S+) / (\S+) with 64"))],
        # ---- prefix-independent failover ---------------------------------------------------------------
        *[Figure("docs/pic.md", f"pic table: {n:,} prefixes",
                 rf"\| {n:,} \| ([\d,]+), (\S+ m?s) \| (\d+), (\S+ m?s) \| (\d+), (\S+ m?s) \|", "pic",
                 partial(_pic_row, n))
          for n in (1000, 10000, 100000, 500000)],
        Figure("docs/pic.md", "pic: flat at 500,000 prefixes against pic, and the packets lost",
               r"\((\S+) s at 500,000 prefixes, ([\d,]+) times pic's\).*?Packets lost follow the same curves "
               r"\(([\d,]+) vs (\d+) vs (\d+) at 500,000\)", "pic",
               lambda r: (lambda by: [fixed(by["flat"]["convergence_ns"] / 1e9, 2),
                                      sig3(by["flat"]["convergence_ns"] / by["pic"]["convergence_ns"]),
                                      thousands(by["flat"]["lost_packets"]), str(by["pic"]["lost_packets"]),
                                      str(by["dataplane"]["lost_packets"])])(
                   {x["mode"]: x for x in r["results"] if x["prefixes"] == 500_000})),
        Figure("docs/pic.md", "bench_pic: its CPU time", r"peak memory; (\d+) s in all on one core", "pic", cpu=True),
        # ---- incast: ECN, DCQCN, PFC --------------------------------------------------------------------
        *[Figure("docs/programs.md", f"incast table: {mode}",
                 rf"\| {re.escape(mode)} \| (\S+) \| (\S+) \| ([\d,]+) \| ([\d,]+) \| ([\d,]+) \| (\S+) / (\S+) / (\S+) MB "
                 r"\| (\S+ ms|never \(\S+ delivered\)) \|", "incast",
                 partial(_incast_row, mode))
          for mode in ("droptail", "ecn", "pfc", "ecn+pfc")],
        Figure("docs/programs.md", "incast: ecn's utilisation over seeds 1-3, at 16 and 4 senders",
               r"utilisation \((\S+)% at 16 senders over seeds 1-3, (\S+)% at the tests' 4 senders", "incast",
               lambda r: [span([x["utilisation"] for x in _seeds(r, SEEDS_16, "ecn")], pct),
                          span([x["utilisation"] for x in _seeds(r, SEEDS_4, "ecn")], pct)],
               uses=SEEDS_16[1:] + SEEDS_4),
        *[Figure("docs/ecn.md", f"incast table: {mode}",
                 rf"\| {re.escape(mode)} \| (\S+) \| (\S+) \| (\S+) \| ([\d,]+) \| ([\d,]+) \| ([\d,]+) \| (\S+) / (\S+) / "
                 r"(\S+) MB \| (\S+) \((\S+)\) \| (\S+ ms|never) \| (\S+) \|", "incast",
                 partial(_incast_doc_row, mode))
          for mode in ("droptail", "ecn", "pfc", "ecn+pfc")],
        Figure("docs/ecn.md", "incast over seeds 1-3: ecn and ecn+pfc",
               r"`ecn` (\S+)% utilisation, (\S+)% after 2 ms, queue in 4-400 KB (\S+)% of that time, completion (\S+) ms; "
               r"`ecn\+pfc` (\S+)%, (\S+)% after 2 ms, (\S+)% in band", "incast",
               lambda r: (lambda e, p: [
                   span([x["utilisation"] for x in e], pct), span([x["utilisation_steady"] for x in e], pct),
                   span([x["queue_in_band_fraction"] for x in e], lambda v: pct(v, 0)),
                   span([x["completion_ns"] / 1e6 for x in e], lambda v: fixed(v, 2)),
                   span([x["utilisation"] for x in p], pct), span([x["utilisation_steady"] for x in p], pct),
                   span([x["queue_in_band_fraction"] for x in p], lambda v: pct(v, 0))])(
                   _seeds(r, SEEDS_16, "ecn"), _seeds(r, SEEDS_16, "ecn+pfc")), uses=SEEDS_16[1:]),
        Figure("docs/ecn.md", "incast at the tests' 4 senders over seeds 1-3: ecn; drop-tail's drops",
               r"the default profile gives (\S+)% utilisation \((\S+)% after 2 ms, queue in band (\S+)% of it\), p99 "
               r"(\S+) MB, completion (\S+) ms over seeds 1-3; drop-tail drops ([\d,]+) packets \(seed 1\)",
               SEEDS_4[0], lambda r: (lambda xs: [
                   span([x["utilisation"] for x in xs], pct), span([x["utilisation_steady"] for x in xs], pct),
                   span([x["queue_in_band_fraction"] for x in xs], lambda v: pct(v, 0)),
                   span([x["qdepth_p99_bytes"] / 1e6 for x in xs], lambda v: fixed(v, 2)),
                   span([x["completion_ns"] / 1e6 for x in xs], lambda v: fixed(v, 2)),
                   thousands(_incast(r[SEEDS_4[0]], "droptail")["drops"])])(_seeds(r, SEEDS_4, "ecn")),
               uses=SEEDS_4[1:]),
        Figure("docs/ecn.md", "incast: pfc keeps the bottleneck busy", r"PFC alone is lossless and keeps the "
               r"bottleneck (\S+)% busy \(the transfer ends at (\S+) ms", "incast",
               lambda r: [pct(_incast(r, "pfc")["utilisation"]), fixed(_incast(r, "pfc")["completion_ns"] / 1e6, 2)]),
        *[Figure("docs/ecn.md", f"incast profiles over seeds 1-3: {profile}",
                 rf"\| `{profile}` \| [^|]+ \| (\S+)% \| (\S+)% \| (\S+)% \| ([^|]+?) \| ([^|]+?) \|",
                 _profile_seeds(profile)[0], partial(_profile_row, profile), uses=_profile_seeds(profile)[1:])
          for profile in ("dcqcn-paper", "ns3-rdma", "hpcc-dcqcn-paper", "hpcc-dcqcn", "htsim")],
        # ---- PFC deadlock and the watchdog ------------------------------------------------------------
        Figure("docs/fabric/queues.md", "pfc-deadlock: delivered without the watchdog, probes, storm time, stall",
               r"deadlocks \((\d+) KB of (\S+) MB delivered, every ring port paused for good, the later probes (\d+) of "
               r"(\d+) KB\); with it the watchdog storms the three ring queues at (\d+) us \(the ring stalls by (\d+) us",
               "pfc-deadlock",
               lambda r: [str(_pfc(r, "off")["delivered_bytes"] // 1000), fixed(_pfc(r, "off")["sent_bytes"] / 1e6, 1),
                          str(_pfc(r, "off")["probe_delivered_bytes"] // 1000), str(_pfc(r, "off")["probe_bytes"] // 1000),
                          _storm_us(_pfc(r, "watchdog"), "storm (drop)").split(".")[0],
                          str(_pfc(r, "off")["last_delivery_ns"] // 1000)]),
        *[Figure("docs/pfc-deadlock.md", f"pfc-deadlock table: {mode}, action {action}",
                 rf"\| {mode} \| {action} \| ([\d,]+) of ([\d,]+) B \| (\d+) \| ([\d,]+) of ([\d,]+) B \| (\d+) \| "
                 r"(\d+) \| ([\d,]+(?: pkts)?) \| (\d+) \| (\d+) \|", name, partial(_pfc_row, mode))
          for mode, action, name in (("off", "-", "pfc-deadlock"), ("watchdog", "drop", "pfc-deadlock"),
                                     ("watchdog", "forward", "pfc-deadlock-forward"))],
        Figure("docs/pfc-deadlock.md", "pfc-deadlock: last byte, storm and restore times",
               r"the last byte arrives by (\d+) us .*? stormed at (\S+) us \(stalled from about (\d+) us; .*? restored "
               r"at (\S+) us", "pfc-deadlock",
               lambda r: [str(_pfc(r, "off")["last_delivery_ns"] // 1000), _storm_us(_pfc(r, "watchdog"), "storm (drop)"),
                          str(_pfc(r, "off")["last_delivery_ns"] // 1000), _storm_us(_pfc(r, "watchdog"), "restored")]),
        # ---- past one machine ---------------------------------------------------------------------------
        Figure("docs/fabric/ranks.md", "bench_parallel: packet-hops, windows, frames across the cut, cut links",
               r"\(([\d,]+) packet-hops, identical at 1 and 2 ranks\).*?(\d+) windows of 1 us, ([\d,]+) frames across the "
               r"(\d+) cut links", "bench-parallel",
               lambda r: [thousands(r["one"]["hops"]), str(r["many"]["per_rank"][0]["windows"]),
                          thousands(sum(x["cut_messages"] for x in r["many"]["per_rank"])),
                          str(r["many"]["partition"]["cut_links"])]),
    ]
