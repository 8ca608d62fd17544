"""Quantities in topologies and scenario options (dataplane.net.core.units), on their exact values:

* rates are SI: ``Kbps`` is 1,000 bit/s (not 1,024), ``Mbps`` 10^6, ``Gbps`` 10^9;
* a queue holds a whole number of packets or bytes: ``10.5p``, a bare ``2.5`` or ``1000.5B`` is
  refused with a located error, while ``1.5KB`` (1,500 bytes) and ``0.5KiB`` (512) are whole.
"""
from __future__ import annotations

import pytest

from dataplane.control.config_errors import ConfigError
from dataplane.net.core.units import UnitError, parse_queue, parse_rate
from dataplane.net.fabric.network import Network
from dataplane.net.topology.load import load_yaml_topology


@pytest.mark.parametrize("text, bps", [("1Kbps", 1_000), ("64Kbps", 64_000), ("1.5 kbps", 1_500), ("1Mbps", 10**6),
                                       ("2.5Gbps", 2_500_000_000), ("999bps", 999)])
def test_rates_are_si(text, bps):
    assert parse_rate(text) == bps


@pytest.mark.parametrize("text, want", [("10p", (10, "packets")), ("1", (1, "packets")), ("1.5KB", (1_500, "bytes")),
                                        ("0.5KiB", (512, "bytes")), ("1000B", (1_000, "bytes"))])
def test_whole_queue_sizes_are_read(text, want):
    assert parse_queue(text) == want


@pytest.mark.parametrize("text", ["10.5p", "2.5", "1000.5B", "0.5p", "1.0005KB"])
def test_fractional_queue_sizes_are_refused(text):
    with pytest.raises(UnitError, match="queue size must be a positive whole number"):
        parse_queue(text)


TOPOLOGY = """
name: units
defaults: {bandwidth: BANDWIDTH, latency: 1us, queue: QUEUE}
topology:
  nodes:
    h1: {kind: host, ip: 10.0.0.1/24}
    h2: {kind: host, ip: 10.0.0.2/24}
  links:
    - endpoints: ["h1", "h2"]
"""


def test_a_64kbps_link_serializes_a_frame_in_bits_over_64000():
    """A 60-byte frame (84 B of line time) on a 64Kbps link: 672 bits / 64,000 bit/s = 10.5 ms."""
    net = Network.from_spec(load_yaml_topology(TOPOLOGY.replace("BANDWIDTH", "64Kbps").replace("QUEUE", "10p")))
    (link,) = net.links
    assert link.rate_bps == 64_000
    assert link.serialize_ns(60) == 10_500_000


def test_a_fractional_queue_in_a_topology_is_a_located_error():
    with pytest.raises(ConfigError, match=r"<topology.yaml>:3: error: defaults.queue: queue size must be a positive "
                                          r"whole number, got '10.5p'"):
        load_yaml_topology(TOPOLOGY.replace("BANDWIDTH", "1Gbps").replace("QUEUE", "10.5p"))
