"""Bad packet bytes never crash the engine: random and truncated packets through every program."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dataplane.control.switch import Switch
from dataplane.resources import data_dir

ROOT = Path(__file__).resolve().parents[1]
PROGRAMS = sorted(data_dir("programs").glob("*.p4")) + sorted((ROOT / "programs").glob("*.p4"))


@lru_cache(maxsize=None)
def switch(path: Path) -> Switch:
    return Switch.from_file(path)


# Packets that look like Ethernet/IPv4/TCP-UDP often enough to reach deep parser states.
ETH_IPV4 = bytes.fromhex("ffffffffffff000000000001 0800 4500003c000040004006" .replace(" ", ""))
packets = st.one_of(
    st.binary(max_size=200),
    st.builds(lambda head, tail: ETH_IPV4[:head] + tail, st.integers(0, len(ETH_IPV4)), st.binary(max_size=120)),
)


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.name)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(port=st.integers(0, 511), data=packets)
def test_random_packets_never_crash(path, port, data):
    """Any bytes on any port give a result (outputs or drops), never an exception."""
    result = switch(path).process(port, data)
    for out in result.outputs:
        assert 0 <= out.port < 512 and isinstance(out.data, bytes)
