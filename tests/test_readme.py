"""README's examples work as written, from any folder."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def test_python_example_runs_from_another_folder(tmp_path):
    text = README.read_text()
    block = re.search(r"From Python.*?```python\n(.*?)```", text, re.S)
    assert block, "README has no 'From Python' example"
    r = subprocess.run([sys.executable, "-c", block.group(1)], cwd=tmp_path, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr


def test_traffic_and_events_examples_run(tmp_path):
    """The YAML examples under Run are real files: `dataplane run` on the built-in leaf-spine takes them."""
    blocks = re.findall(r"```yaml\n(.*?)```", README.read_text(), re.S)
    traffic = next(b for b in blocks if "app: ping" in b and "app: incast" in b)
    events = next(b for b in blocks if "state: down" in b and "node:" in b)
    (tmp_path / "traffic.yaml").write_text(traffic)
    (tmp_path / "events.yaml").write_text(events)
    r = subprocess.run([sys.executable, "-c", "from dataplane.cli import run; run()", "run", "--traffic",
                        str(tmp_path / "traffic.yaml"), "--events", str(tmp_path / "events.yaml"),
                        "--duration", "5ms", "--json"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert {"1000000 ns: link leaf1:p3<->spine1:p1 down", "2000000 ns: node spine2 down",
            "3000000 ns: link leaf1:p3<->spine1:p1 up"} <= set(data["log"])
    assert data["hosts"]["h1"]["sent"] >= 5 and data["hosts"]["h4"]["received"] > 0


@pytest.mark.no_pypy
def test_python_api_example_runs():
    """The Python API section's block runs as written and prints what its comments say."""
    block = re.search(r"## Python API.*?```python\n(.*?)```", README.read_text(), re.S)
    assert block, "README has no Python API example"
    r = subprocess.run([sys.executable, "-c", block.group(1)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "['ecmp_nhop', 'ipv4_lpm']"
    assert lines[1].startswith("['#include <core.p4>', '#include <v1model.p4>'")
    assert lines[2].startswith("{'sent': 3, 'received': 3, 'lost': 0")
    assert lines[3].startswith("pic ")
