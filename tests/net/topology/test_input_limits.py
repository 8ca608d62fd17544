"""Topology files: a link from a node to itself, numbers past what any field holds and
quantities that are infinite or too large are located errors (``FILE:LINE: error: FIELD: ...``),
in YAML and in the tutorials' topology.json alike; they used to load silently or stop with an
OverflowError or Python's 4,300-digit ValueError."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from dataplane.control.config_errors import ConfigError
from dataplane.net.topology.load import load_topology

YAML = """\
name: limits
topology:
  nodes:
    s1: {kind: switch, program: ipv4_router}
    s2: {kind: switch, program: ipv4_router}
    h1: {kind: host, ip: 10.0.1.1/24}
  links:
    - endpoints: ["s1:p1", "h1:eth0"]
    - endpoints: ["s1:p2", "s2:p2"]
      EXTRA
"""


def _yaml(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "topo.yaml"
    path.write_text(textwrap.dedent(text))
    return path


def _error(path: Path, **kwargs) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        load_topology(path, **kwargs)
    assert str(info.value).startswith(f"{path}:{info.value.line}") and info.value.line > 0
    assert "Traceback" not in str(info.value) and len(str(info.value)) < 400
    return info.value


@pytest.mark.parametrize("a,b", [("s1:p2", "s1:p3"), ("s2:p2", "s2:p1")])
def test_a_yaml_link_from_a_switch_to_itself_is_refused(tmp_path, a, b):
    path = _yaml(tmp_path, YAML.replace('["s1:p2", "s2:p2"]', f'["{a}", "{b}"]').replace("EXTRA", ""))
    err = _error(path)
    assert err.line == 9 and "topology.links[1].endpoints" in err.message
    assert f"a link from '{a[:2]}' to itself" in err.message


def test_a_yaml_link_between_two_switches_is_fine(tmp_path):
    spec = load_topology(_yaml(tmp_path, YAML.replace("EXTRA", "")))
    assert [(lk.a, lk.b) for lk in spec.links][1] == (("s1", 2), ("s2", 2))


def _tutorial(tmp_path: Path, links: list) -> Path:
    topo = {"hosts": {"h1": {"ip": "10.0.1.1/24"}}, "switches": {"s1": {}, "s2": {}}, "links": links}
    path = tmp_path / "topology.json"
    path.write_text("{\n" + ",\n".join(f'  "{k}": {json.dumps(v)}' for k, v in topo.items()) + "\n}\n")
    return path


@pytest.mark.parametrize("link", [["s1-p1", "s1-p2"], ["s1", "s1"], ["s1", "s1-p3"]])
def test_a_tutorial_link_from_a_switch_to_itself_is_refused(tmp_path, link):
    err = _error(_tutorial(tmp_path, [["h1", "s2-p1"], link]), program="ipv4_router")
    assert err.line == 4 and "links[1]" in err.message and "a link from 's1' to itself" in err.message


def test_a_tutorial_link_between_two_switches_is_fine(tmp_path):
    spec = load_topology(_tutorial(tmp_path, [["h1", "s2-p1"], ["s1-p1", "s2-p2"]]), program="ipv4_router")
    assert len(spec.links) == 2


@pytest.mark.parametrize("extra,expect", [
    ("latency: .inf", "a time must be a finite number"),
    ("latency: .nan", "a time must be a finite number"),
    ("latency: 1e400s", "time '1e400s' is too large"),
    ("latency: 4294967296s", "time '4294967296s' is too large"),
    ("bandwidth: 1e400Gbps", "bandwidth '1e400Gbps' is too large"),
    ("bandwidth: 9223372036854775808bps", "is too large"),
    ("queue: .inf", "a queue size must be a finite number"),
    ("queue: 1e300p", "queue size '1e300p' is too large"),
    ("mtu: " + "9" * 5000, "must be a whole number 68..65535, got a number of 5000 digits"),
    ("latency: " + "9" * 5000, "a number of 5000 digits is too large"),
], ids=lambda v: v[:30])
def test_bad_numbers_in_a_yaml_link_are_located(tmp_path, extra, expect):
    path = _yaml(tmp_path, YAML.replace("EXTRA", extra))
    err = _error(path)
    assert err.line == 10 and expect in err.message


@pytest.mark.parametrize("extra", ["latency: 4294967295s", "bandwidth: 9223372036854775807bps", "queue: 1000000p"])
def test_numbers_on_the_limit_load(tmp_path, extra):
    load_topology(_yaml(tmp_path, YAML.replace("EXTRA", extra)))


@pytest.mark.parametrize("latency,expect", [("1e400", "too large"), (10**400, "too large"),
                                            ("9" * 5000, "too large"), ("nan", "cannot read 'nan'")],
                         ids=["1e400", "10**400", "5000 digits", "nan"])
def test_bad_tutorial_latencies_are_located(tmp_path, latency, expect):
    path = _tutorial(tmp_path, [["h1", "s2-p1"], ["s1-p1", "s2-p2", "LAT", 10]])
    written = json.dumps(latency) if isinstance(latency, str) else "1" + "0" * 400
    path.write_text(path.read_text().replace('"LAT"', written))
    err = _error(path, program="ipv4_router")
    assert err.line == 4 and "links[1][2]" in err.message and expect in err.message
