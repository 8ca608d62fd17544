"""Quantities are read exactly and must be finite and fit where they are kept: times below
2^32 s (a classic pcap keeps a timestamp's seconds in 32 bits), rates and queue sizes in a
signed 64-bit integer. Past a limit is a UnitError naming it, never an OverflowError."""
from __future__ import annotations

import math

import pytest

from dataplane.net.core.units import UnitError, parse_packet_rate, parse_queue, parse_rate, parse_time

# 2^32 s is the first time a classic pcap cannot record (its seconds field is a uint32).
PCAP_LIMIT_NS = 2**32 * 10**9
INT64_MAX = 2**63 - 1


@pytest.mark.parametrize("text,ns", [("4294967295999999999ns", PCAP_LIMIT_NS - 1),
                                     ("4294967295.999999999s", PCAP_LIMIT_NS - 1),
                                     ("4294967295s", PCAP_LIMIT_NS - 10**9),
                                     ("2.5us", 2500), ("0", 0)])
def test_times_below_the_pcap_limit_are_read_exactly(text, ns):
    assert parse_time(text) == ns


@pytest.mark.parametrize("text", ["4294967296000000000ns", "4294967296s", "1e309s", "1e300s", "9" * 400_000 + "ns",
                                  PCAP_LIMIT_NS, 10**5000, 1e300],
                         ids=lambda v: str(v)[:24] if not isinstance(v, int) or v < 10**30 else "a 5000-digit int")
def test_times_at_or_past_the_pcap_limit_are_refused(text):
    with pytest.raises(UnitError, match="too large.*2\\^32 s"):
        parse_time(text)


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan])
@pytest.mark.parametrize("parse", [parse_time, parse_rate, parse_packet_rate, parse_queue])
def test_infinite_and_nan_are_refused(parse, value):
    with pytest.raises(UnitError, match="finite"):
        parse(value)


def test_a_tiny_exponent_is_zero_not_minutes_of_arithmetic():
    assert parse_time("1e-400000000s") == 0


@pytest.mark.parametrize("parse,unit", [(parse_rate, "bps"), (parse_packet_rate, "pps")])
def test_rates_fit_in_64_bits(parse, unit):
    assert parse(f"{INT64_MAX}{unit}") == INT64_MAX
    for text in (f"{INT64_MAX + 1}{unit}", f"1e300{unit}", f"1e400{unit}"):
        with pytest.raises(UnitError, match="too large"):
            parse(text)


def test_a_rate_that_rounds_to_nothing_is_refused():
    assert parse_rate("1bps") == 1
    with pytest.raises(UnitError, match="at least 1 bps"):
        parse_rate("0.5bps")


@pytest.mark.parametrize("unit,kind", [("p", "packets"), ("B", "bytes")])
def test_queue_sizes_fit_in_64_bits(unit, kind):
    assert parse_queue(f"{INT64_MAX}{unit}") == (INT64_MAX, kind)
    with pytest.raises(UnitError, match="too large"):
        parse_queue(f"{INT64_MAX + 1}{unit}")
    with pytest.raises(UnitError, match="too large"):
        parse_queue(f"1e300{unit}")


def test_negative_and_boolean_values_are_refused():
    with pytest.raises(UnitError, match="negative"):
        parse_time(-1)
    with pytest.raises(UnitError, match="cannot read True"):
        parse_time(True)
    with pytest.raises(UnitError, match="positive whole number"):
        parse_queue(-5)


def test_a_long_value_is_cut_in_the_message():
    with pytest.raises(UnitError) as info:
        parse_time("9" * 400_000 + "ns")
    assert len(str(info.value)) < 300 and "400002 characters" in str(info.value)
