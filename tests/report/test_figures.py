"""A scenario's own figures on its report page: the collective's busbw against size with its
bound, and the training job's GPUs over time."""
from __future__ import annotations

import json
import re

from click.testing import CliRunner

from dataplane.cli import main
from dataplane.report.figures import timeline_svg

SMALL = ["--topology", "leaf-spine", "--leaves", "2", "--spines", "1", "--hosts-per-leaf", "2"]


def test_the_collective_page_draws_busbw_and_its_bound_per_size(tmp_path):
    page = tmp_path / "c.html"
    result = CliRunner().invoke(main, ["collective", "allgather", *SMALL, "--sizes", "1K:16K", "--factor", "4",
                                       "--report", str(page)])
    assert result.exit_code == 0, result.output
    html = page.read_text()
    chart = json.loads(re.search(r'id="figure-0"[^>]*data-chart="([^"]*)"', html).group(1).replace("&quot;", '"'))
    names = [s["name"] for s in chart["series"]]
    assert names == ["busbw, allgather ring", "bound"]
    assert chart["series"][0]["x"] == [10.0, 12.0, 14.0]                 # log2 of 1K, 4K, 16K


def test_a_timeline_colours_each_kind_once_in_its_key():
    rows = [{"name": "GPU 0", "spans": [[0, 10, "forward"], [10, 30, "backward"], [30, 40, "forward"]]},
            {"name": "GPU 1", "spans": [[0, 20, "forward"], [25, 40, "exposed"]]}]
    svg = timeline_svg("t", "clean", rows)
    assert svg.count("<rect") == 5
    keys = re.findall(r"</i>([a-z]+)</span>", svg)
    assert keys == ["forward", "backward", "exposed"]
