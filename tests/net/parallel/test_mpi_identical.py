"""1 rank and 2 MPI ranks give byte-identical pcaps, metrics, report data and JSON (skipped
without MPI/mpi4py).

Each case runs ``dataplane run`` twice as a process, once plainly and once with ``--ranks 2``
(which starts ``mpiexec -n 2``), and compares every file written and the ``--json`` output.
The report's data (report.json) and page differ in the command line they record only.
"""
from __future__ import annotations

import html
import json
import shutil
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import pytest
from click.testing import CliRunner

from dataplane.cli import main
from dataplane.net.parallel.launch import mpi_available
from dataplane.net.parallel.partition import partition
from dataplane.net.topology.generators import fat_tree
from dataplane.net.topology.load import load_topology
from dataplane.resources import data_dir
from dataplane.testing.processes import dataplane_command


@lru_cache(maxsize=1)
def _mpi_works() -> bool:
    if not mpi_available():
        return False
    probe = subprocess.run([sys.executable, "-c", "from mpi4py import MPI"], capture_output=True)
    return probe.returncode == 0


pytestmark = [pytest.mark.no_pypy, pytest.mark.ranks, pytest.mark.skipif(not _mpi_works(), reason="needs MPI (mpiexec) and a working mpi4py")]


def _run(tmp: Path, name: str, args: list[str], ranks: int, files: bool = True) -> tuple[str, Path]:
    """One rank in this process (no interpreter to start), two through ``--ranks 2``; with
    ``files``, into ``--out`` (pcaps, metrics, plots and report.json) too."""
    out = tmp / f"{name}-{ranks}"
    if "--report" in args:
        out.mkdir()
        args = [*args[:-1], str(out / args[-1])]    # the page goes into the run's folder
    if files:
        args = [*args, "--out", str(out)]
    if ranks == 1:
        result = CliRunner().invoke(main, ["run", *args, "--json"])
        assert result.exit_code == 0, result.output
        return result.output, out
    proc = subprocess.run(dataplane_command("run", *args, "--json", "--ranks", str(ranks)),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, out


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _command(files: dict[str, bytes]) -> str:
    return json.loads(files["report.json"])["provenance"]["command"]


def _same(tmp: Path, name: str, args: list[str]) -> dict:
    one, d1 = _run(tmp, name, args, 1)
    two, d2 = _run(tmp, name, args, 2)
    assert two == one
    f1, f2 = _files(d1), _files(d2)
    assert sorted(f2) == sorted(f1) and any(k.endswith(".pcap") for k in f1) and "report.json" in f1
    # The command lines differ (--ranks 2, the folders): the report's data and page record them.
    theirs, ours = _command(f2), _command(f1)
    commands = [(json.dumps(theirs)[1:-1].encode(), json.dumps(ours)[1:-1].encode()),
                (html.escape(theirs).encode(), html.escape(ours).encode())]
    for name in f2:
        if name == "report.json" or name.endswith(".html"):
            for theirs, ours in commands:
                f2[name] = f2[name].replace(theirs, ours)
    different = [k for k in f1 if f1[k] != f2[k]]
    assert different == []
    return json.loads(one)


def test_leaf_spine_pingall_is_identical_on_two_ranks(tmp_path):
    # pingall-parallel: the sequential pingall hands each turn to the next host, which one process does
    data = _same(tmp_path, "ls", ["--traffic", "pingall-parallel", "--duration", "2ms", "--report", "report.html"])
    assert sum(h["delivered"] for h in data["hosts"].values()) == 12      # every ping answered


_REROUTE = """
from dataplane.net.devices.controller import Controller


class Reroute(Controller):
    def on_link_down(self, port):
        entries = self.switch.table_entries("ecmp_nhop")
        good = [e for e in entries if e.args[1] != port]
        for e in entries:
            if e.args[1] == port and good:
                self.switch.table_modify("ecmp_nhop", e.handle, "set_nhop", list(good[0].args))
"""


def _agg_end(link) -> str:
    return link.a[0] if link.a[0].startswith("agg") else link.b[0]


def test_fat_tree_with_a_failed_cut_link_and_a_controller_is_identical_on_two_ranks(tmp_path):
    topo = fat_tree(4).write(tmp_path / "ft")
    # Switches detect a failure after 50 us (not 1 ms), so detections land within the run too.
    topo.write_text(topo.read_text().replace("{kind: switch,", "{kind: switch, detection_delay: 50us,"))
    part = partition(load_topology(topo), 2)
    spec = load_topology(topo)
    cut = [spec.links[i] for i in part.cut_links]
    # The switch at the failed link's aggregation end reroutes its ECMP members (10 us a write);
    # it runs on rank 1, so its controller's writes (the report's timeline) are gathered.
    failed = next(ls for ls in cut if part.rank_of[_agg_end(ls)] == 1)
    agg = _agg_end(failed)
    (topo.parent / "reroute.py").write_text(_REROUTE)
    topo.write_text(topo.read_text().replace(f"    {agg}: {{kind: switch,",
                                             f"    {agg}: {{kind: switch, controller: reroute.py:Reroute, "
                                             f"write_latency: 10us,"))
    assert load_topology(topo).switches[agg].controller
    inside = next(ls for ls in spec.links if ls not in cut and ls.a[0] in spec.switches and ls.b[0] in spec.switches)
    events = tmp_path / "events.yaml"
    events.write_text(f"- {{at: 200us, link: [\"{failed.a[0]}:p{failed.a[1]}\", \"{failed.b[0]}:p{failed.b[1]}\"]}}\n"
                      f"- {{at: 300us, link: [\"{inside.a[0]}:p{inside.a[1]}\", \"{inside.b[0]}:p{inside.b[1]}\"]}}\n")
    data = _same(tmp_path, "ft", [str(topo), "--traffic", "all-to-all", "--duration", "600us",
                                  "--events", str(events)])
    assert any("down" in line for line in data["log"]) and len(data["log"]) == 6
    timeline = json.loads((tmp_path / "ft-2" / "report.json").read_text())["runs"][0]["timeline"]
    assert any(f"{agg}'s controller" in what for _, what in timeline)
    assert sum(p["lost"] for p in data["ports"].values()) > 0     # frames in flight on the failed links


def test_pfc_pause_frames_across_the_cut_are_identical_on_two_ranks(tmp_path):
    """An incast into h4 under PFC: pause frames go from spine to leaf over cut links."""
    source = data_dir("topologies")
    shutil.copytree(source / "leaf-spine", tmp_path / "leaf-spine")
    topo = tmp_path / "ls-pfc.yaml"
    topo.write_text((source / "leaf-spine.yaml").read_text()
                    .replace("  queue: 64p\n", "  queue: 512KB\n  pfc: {xoff: 16KB, xon: 8KB}\n"))
    spec = load_topology(topo)
    rank_of = partition(spec, 2).rank_of
    data = _same(tmp_path, "pfc", [str(topo), "--traffic", "incast", "--duration", "1ms"])
    crossing = [ls for ls in spec.links if rank_of[ls.a[0]] != rank_of[ls.b[0]]
                and (data["ports"][f"{ls.a[0]}:p{ls.a[1]}"]["pause_tx"] or data["ports"][f"{ls.b[0]}:p{ls.b[1]}"]["pause_tx"])]
    assert crossing, "no pause frame crossed the cut: the test no longer covers it"
    assert sum(h["lost"] for h in data["hosts"].values()) == 0


def test_dpus_an_xdp_host_and_traffic_classes_are_identical_on_two_ranks(tmp_path):
    """Their pipelines' summaries (busy time, the programs' counters) and a traffic-class
    port's per-queue counters come from their own rank."""
    topology = str(Path(__file__).parents[1] / "data" / "dpu_xdp.yaml")
    # --json only: --out's files are made by the same code from the same counters (tests above)
    args = [topology, "--traffic", "pingall-parallel", "--duration", "200us"]
    one, _ = _run(tmp_path, "dx", args, 1, files=False)
    two, _ = _run(tmp_path, "dx", args, 2, files=False)
    assert two == one
    data = json.loads(one)
    assert data["xdp"]["h2"]["processed"] > 0 and data["dpus"]["d2"]["busy_ns"] > 0
    assert data["ports"]["s1:p1"]["queues"][0]["tx_packets"] > 0
    assert data["dpus"]["d2"]["counters"] and sum(h["delivered"] for h in data["hosts"].values()) == 2


_STORM = """
# h1 - s2 - s1 - s3 - h3 (1 Gb/s): s3 pauses s1, whose watchdog storms the port; s1 alone on rank 1.
name: wd-ranks
defaults: {{bandwidth: 10Gbps, latency: 1us, queue: 256KB}}
topology:
  nodes:
    s1: {{kind: switch, program: ipv4_router, entries: {entries}, rank: 1,
         pfc: {{xoff: 20KB, xon: 10KB, watchdog: {{detection: 20us, restoration: 150us, poll: 5us, action: drop}}}}}}
    s2: {{kind: switch, program: ipv4_router, entries: {entries}, rank: 0, pfc: {{xoff: 20KB, xon: 10KB}}}}
    s3: {{kind: switch, program: ipv4_router, entries: {entries}, rank: 0, pfc: {{xoff: 20KB, xon: 10KB, quanta: 1000}}}}
    h1: {{kind: host, ip: 10.0.1.1/24, mac: "08:00:00:00:01:11", gateway: 10.0.1.254, arp: {{10.0.1.254: "08:00:00:00:01:00"}}}}
    h3: {{kind: host, ip: 10.0.3.3/24, mac: "08:00:00:00:03:00", gateway: 10.0.3.254, arp: {{10.0.3.254: "08:00:00:00:03:01"}}}}
  links:
    - {{endpoints: ["s2:p1", "h1"]}}
    - {{endpoints: ["s2:p3", "s1:p1"]}}
    - {{endpoints: ["s1:p3", "s3:p1"]}}
    - {{endpoints: ["s3:p3", "h3"], bandwidth: 1Gbps}}
"""


def test_a_pfc_watchdog_alone_on_its_rank_is_identical_on_two_ranks(tmp_path):
    """A burst stalls s1's port to s3 (s3 pauses it, draining at 1 Gb/s) and s1's watchdog storms
    it, dropping the rest of the burst; s1's rank then has nothing left while the other rank
    still has the second burst to send. One process's watchdog polls on and restores the port
    before the second burst, so a watchdog that stopped with its rank would drop all of it.
    s1 is not on rank 0, which writes the results: its watchdog's counters are gathered."""
    topo = tmp_path / "storm.yaml"
    topo.write_text(_STORM.format(entries=data_dir("programs") / "ipv4_router.json"))
    traffic = tmp_path / "bursts.yaml"
    traffic.write_text("- {app: udp, from: h1, to: h3, rate: 5Gbps, size: 1000, start: 0, duration: 60us}\n"
                       "- {app: udp, from: h1, to: h3, rate: 5Gbps, size: 1000, start: 350us, duration: 60us}\n")
    assert partition(load_topology(topo), 2).rank_of == {"s1": 1, "s2": 0, "s3": 0, "h1": 0, "h3": 0}
    args = [str(topo), "--traffic", str(traffic), "--duration", "500us"]
    # --json only (as the case above): the watchdog decides what is sent, which every count shows
    one, _ = _run(tmp_path, "wd", args, 1, files=False)
    two, _ = _run(tmp_path, "wd", args, 2, files=False)
    assert two == one
    data = json.loads(one)
    h1 = data["hosts"]["h1"]
    # Stormed twice, a burst each (rank 1 sends s1's watchdog's counters and log to rank 0); lost:
    # what the drop action discarded, and what is still queued for the 1 Gb/s link at the end.
    watchdog = data["switches"]["s1"]["pfc_watchdog"]
    assert watchdog["storms"] == 2 and 0 < watchdog["storm_drops"] < h1["lost"]
    assert sum(p["drops"] for p in data["ports"].values()) == 0
    assert h1["delivered"] > h1["sent"] // 4       # the second burst got through as well
