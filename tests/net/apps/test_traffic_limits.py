"""Numbers in traffic and events files: every count, size and time range-checked, an error at
the entry's line naming the field and its range, never an OverflowError or a bare ValueError.

A UDP flow's payload is at least 16 bytes (its sequence number and send time) and at most 65507
(one IPv4 datagram: 65535 less the IPv4 and UDP headers)."""
from __future__ import annotations

import pytest

from dataplane.control.config_errors import ConfigError
from dataplane.net.apps.traffic import Traffic
from dataplane.net.fabric.network import Network
from dataplane.net.topology.events import load_events
from dataplane.net.topology.load import load_topology
from dataplane.resources import data_dir


@pytest.fixture(scope="module")
def topology():
    return load_topology(data_dir("topologies") / "leaf-spine.yaml")


def _load(topology, tmp_path, line: str):
    path = tmp_path / "traffic.yaml"
    path.write_text("- {app: ping, from: h1, to: h2}\n" + line + "\n")
    Traffic(Network.from_spec(topology)).load(path)


@pytest.mark.parametrize("line,expect", [
    ("- {app: udp, from: h1, to: h3, size: 15}", "size must be a whole number 16..65507, got 15"),
    ("- {app: udp, from: h1, to: h3, size: 65508}", "size must be a whole number 16..65507, got 65508"),
    ("- {app: udp, from: h1, to: h3, size: " + "9" * 5000 + "}", "got a number of 5000 digits"),
    ("- {app: ping, from: h1, to: h3, count: 0}", "count must be a whole number 1.."),
    ("- {app: ping, from: h1, to: h3, count: true}", "count must be a whole number 1.."),
    ("- {app: bulk, from: h1, to: h3, window: 0}", "window must be a whole number 1.."),
    ("- {app: udp, from: h1, to: h3, start: .inf}", "a time must be a finite number"),
    ("- {app: udp, from: h1, to: h3, duration: 1e400s}", "time '1e400s' is too large"),
    ("- {app: udp, from: h1, to: h3, rate: 1e300Gbps}", "bandwidth '1e300Gbps' is too large"),
    ("- {app: bulk, from: h1, to: h3, bytes: .nan}", "a queue size must be a finite number"),
], ids=lambda v: v[:40])
def test_bad_numbers_in_a_traffic_file_are_located(topology, tmp_path, line, expect):
    with pytest.raises(ConfigError) as info:
        _load(topology, tmp_path, line)
    assert info.value.line == 2 and "traffic entry 2: " in info.value.message and expect in info.value.message
    assert len(str(info.value)) < 300


@pytest.mark.parametrize("line", ["- {app: udp, from: h1, to: h3, size: 16}",
                                  "- {app: udp, from: h1, to: h3, size: 65507}",
                                  "- {app: ping, from: h1, to: h3, count: 1}",
                                  "- {app: bulk, from: h1, to: h3, window: 1}"])
def test_numbers_on_the_limits_load(topology, tmp_path, line):
    _load(topology, tmp_path, line)


@pytest.mark.parametrize("at,expect", [(".inf", "a time must be a finite number"), ("1e309s", "too large"),
                                       ("4294967296s", "too large"), ("9" * 5000, "a number of 5000 digits")],
                         ids=["inf", "1e309s", "2^32 s", "5000 digits"])
def test_bad_event_times_are_located(topology, tmp_path, at, expect):
    path = tmp_path / "events.yaml"
    path.write_text("- {at: 1ms, node: spine1, state: down}\n"
                    f"- {{at: {at}, node: spine1, state: up}}\n")
    with pytest.raises(ConfigError) as info:
        load_events(Network.from_spec(topology), path)
    assert info.value.line == 2 and "event 2: " in info.value.message and expect in info.value.message
    assert len(str(info.value)) < 300


def test_an_event_just_below_the_pcap_limit_loads(topology, tmp_path):
    path = tmp_path / "events.yaml"
    path.write_text("- {at: 4294967295s, node: spine1, state: down}\n")
    assert load_events(Network.from_spec(topology), path) == 1
