"""`dataplane run --int HOST`: the INT collector's records reach the summary, ``--json`` ("int")
and the report's in-band telemetry section, per flow and per hop; a bad ``--int`` is a clear
error. (The records themselves are checked against the fabric in tests/net/apps/test_int_collector.py.)"""
from __future__ import annotations

import html
import json
import re

import pytest
from click.testing import CliRunner

from dataplane.cli import main
from dataplane.report.topology import format_ns
from dataplane.resources import data_dir

TOPOLOGY = str(data_dir("topologies") / "int-leaf-spine.yaml")
TRAFFIC = """\
- {app: udp, from: h3, to: h2, rate: 8Gbps, size: 1000, duration: 100us}
- {app: udp, from: h4, to: h2, rate: 8Gbps, size: 1000, duration: 100us}
"""


@pytest.fixture(scope="module")
def int_run(tmp_path_factory):
    """Two 8 Gb/s flows into h2 with reports to h1: (--json's data, the --report page's text)."""
    folder = tmp_path_factory.mktemp("int-run")
    (folder / "traffic.yaml").write_text(TRAFFIC)
    page = folder / "run.html"
    res = CliRunner().invoke(main, ["run", TOPOLOGY, "--int", "h1", "--traffic", str(folder / "traffic.yaml"),
                                    "--duration", "300us", "--json", "--report", str(page)])
    assert res.exit_code == 0, res.output
    return json.loads(res.output), page.read_text()


def test_json_has_every_delivered_packet_as_a_report(int_run):
    """One report per packet the sink delivered: the reports of the two flows add up to what h2
    received, and each flow's three hops (leaf2, a spine, leaf1) hold one record per report."""
    data, _ = int_run
    flows = data["int"]["flows"]
    assert sorted(f["src"] for f in flows) == ["10.0.2.2", "10.0.2.3"]
    assert sum(f["reports"] for f in flows) == data["hosts"]["h2"]["received"] == data["int"]["reports"]
    assert data["int"]["records"] == 3 * data["int"]["reports"]
    for f in flows:
        assert [h["node"] for h in f["hops"]][::2] == ["leaf2", "leaf1"]
        assert all(h["records"] == f["reports"] for h in f["hops"])


def test_report_shows_each_hops_latency(int_run):
    """The page's table has a row per flow and hop with that hop's latency (mean, p99, max) and
    queue from --json, and each flow has its latency and queue charts."""
    data, page = int_run
    section = page[page.index('<section class="telemetry">'):]
    section = section[:section.index("</section>")]
    rows = [[html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", tr)]
            for tr in re.findall(r"<tr>(.*?)</tr>", section)]
    rows = [r for r in rows if r]
    expected = [[f["flow"], str(h["hop"]), h["node"], f'{h["ingress_port"]} → {h["egress_port"]}', str(h["records"]),
                 format_ns(h["latency_ns"]["mean"]), format_ns(h["latency_ns"]["p99"]),
                 format_ns(h["latency_ns"]["max"]), str(h["queue_bytes"]["mean"]), str(h["queue_bytes"]["max"])]
                for f in data["int"]["flows"] for h in f["hops"]]
    assert rows == expected
    assert section.count("Hop latency, ") == section.count("Queue at each hop, ") == 2


def test_report_without_int_says_how_to_get_it():
    """A run without --int has the section with a note naming the option."""
    from dataplane.report.telemetry import telemetry_section

    assert "dataplane run --int HOST" in telemetry_section(0, {})


@pytest.mark.parametrize("topology, host, message", [
    (TOPOLOGY, "h9", "no host 'h9' in the topology (hosts: h1, h2, h3, h4)"),
    (str(data_dir("topologies") / "leaf-spine.yaml"), "h1", "no switch of the network runs programs/int.p4"),
])
def test_bad_int_option_is_a_located_error(topology, host, message):
    """--int names a host of the topology, and the topology runs programs/int.p4."""
    res = CliRunner().invoke(main, ["run", topology, "--int", host, "--duration", "10us"])
    assert res.exit_code == 2 and "Invalid value for '--int'" in res.output and message in res.output
    assert "Traceback" not in res.output
