"""tools/sim_batches.py: the groups it counts are the switches' ingress packets, each once."""
from __future__ import annotations

import contextlib
import io
import json

import pytest


@pytest.mark.no_pypy     # a measurement tool's bookkeeping: nothing the interpreter changes
def test_groups_count_every_ingress_packet_once(load_tool):
    tool = load_tool("sim_batches")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        sizes, apis, samples = tool.count_groups(["--traffic", "pingall", "--duration", "2ms", "--json"])
    switches = json.loads(out.getvalue())["switches"]
    assert sum(sizes.values()) == sum(s["packets_in"] for s in switches.values()) > 0
    assert set(samples) == set(apis) == set(switches)
    assert sum(len(s) for s in samples.values()) == sum(sizes.values())   # fewer than 1,024 each here
