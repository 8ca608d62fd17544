"""Numbers in entries files that no field can hold are located errors, never an exception.

No P4 field is wider than 2048 bits (p4c's ``maximumWidthSupported``), so a number past it is
refused when the file is read, naming the file, the line and how many digits it has; a
400,000-digit MAC used to stop the command with Python's "Exceeds the limit (4300 digits)".
Numbers that fit 2048 bits but not their field (a MAC is 48 bits) are refused by the switch,
also located. Meter rates must be finite and bursts fit BMv2's 32-bit ``burst_size``.
"""
from __future__ import annotations

import json

import pytest

from dataplane.control.formats import ConfigError, ValueSyntaxError, parse_cli_commands, parse_runtime_json
from dataplane.control.values import parse_number, parse_value

WIDEST = 2**2048 - 1          # the widest value of p4c's widest type, bit<2048>: 617 digits
ENTRY = {"table": "MyIngress.ipv4_lpm", "match": {"hdr.ipv4.dstAddr": ["10.0.1.1", 32]},
         "action_name": "MyIngress.ipv4_forward", "action_params": {"dstAddr": "08:00:00:00:01:11", "port": 1}}


@pytest.mark.parametrize("parse", [parse_value, parse_number])
def test_the_widest_field_value_is_read_and_one_bit_more_is_refused(parse):
    assert parse(str(WIDEST)) == WIDEST
    assert parse(hex(WIDEST)) == WIDEST
    with pytest.raises(ValueSyntaxError, match="2049-bit number.*at most 2048 bits"):
        parse(str(WIDEST + 1))
    with pytest.raises(ValueSyntaxError, match="2049-bit number"):
        parse(hex(WIDEST + 1))


@pytest.mark.parametrize("text,digits", [("9" * 618, 618), ("9" * 400_000, 400_000), ("0x" + "f" * 100_000, 100_000)],
                         ids=["618 digits", "400000 digits", "100000 hex digits"])
def test_more_digits_than_any_field_are_refused_before_converting(text, digits):
    with pytest.raises(ValueSyntaxError, match=f"\\({digits} digits\\) is too large for any field") as info:
        parse_value(text)
    assert len(str(info.value)) < 200


def _runtime(tmp_path, params: str) -> str:
    body = json.dumps({"target": "bmv2", "table_entries": [ENTRY]}, indent=1)
    return body.replace('"08:00:00:00:01:11"', params)


@pytest.mark.parametrize("written", ['"' + "9" * 400_000 + '"', "9" * 400_000], ids=["string", "number"])
def test_a_400000_digit_mac_in_runtime_json_is_a_located_error(tmp_path, written):
    text = _runtime(tmp_path, written)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if '"action_params"' in t)
    with pytest.raises(ConfigError) as info:
        parse_runtime_json(text, "s1-runtime.json")
    err = str(info.value)
    assert err.startswith(f"s1-runtime.json:{line}: error: ") and "400000 digits" in err and len(err) < 300


def test_a_400000_digit_mac_in_a_cli_file_is_a_located_error():
    text = "table_set_default MyIngress.ipv4_lpm drop\n" \
           f"table_add MyIngress.ipv4_lpm ipv4_forward 10.0.1.1/32 => {'9' * 400_000} 1\n"
    with pytest.raises(ConfigError) as info:
        parse_cli_commands(text, "s1-commands.txt")
    err = str(info.value)
    assert err.startswith("s1-commands.txt:2: error: bad action parameter") and "400000 digits" in err
    assert len(err) < 300


@pytest.mark.parametrize("key", ["multicast_group_id", "priority"])
def test_a_long_json_number_anywhere_is_located(key):
    entry = {"multicast_group_id": 1, "replicas": []}
    text = json.dumps({"multicast_group_entries": [entry]}) if key != "priority" else \
        json.dumps({"table_entries": [{**ENTRY, "priority": 1}]})
    text = text.replace(f'"{key}": 1', f'"{key}": {"7" * 5000}')
    with pytest.raises(ConfigError, match="a number of 5000 digits is too large"):
        parse_runtime_json(text, "r.json")


@pytest.mark.parametrize("rates,ok", [("0.5:2147483647", True), ("0.5:2147483648", False), ("nan:10", False),
                                      ("inf:10", False), ("1e400:10", False), ("-1:10", False), ("0:0", True),
                                      ("0.5:" + "9" * 5000, False)], ids=lambda v: str(v)[:20])
def test_meter_rates_are_finite_and_bursts_fit_32_bits(rates, ok):
    text = f"meter_set_rates m 0 {rates}\n"
    if ok:
        assert parse_cli_commands(text).ops
    else:
        with pytest.raises(ConfigError, match="bad meter rate"):
            parse_cli_commands(text, "c.txt")


def test_a_48_bit_field_takes_2_to_48_minus_1_and_refuses_2_to_48(tmp_path):
    """Fits 2048 bits, not its field: the switch says so, at the entry's line (ipv4_router's dstAddr is bit<48>)."""
    from click.testing import CliRunner

    from dataplane.cli import main

    for value, fits in ((2**48 - 1, True), (2**48, False), (10**100, False)):
        path = tmp_path / "e.json"
        text = _runtime(tmp_path, str(value))
        path.write_text(text)
        line = next(i for i, t in enumerate(text.splitlines(), 1) if '"table"' in t) - 1
        r = CliRunner().invoke(main, ["run-packet", "ipv4_router", "--entries", str(path), "--packet", "00" * 60])
        if fits:
            assert r.exit_code == 0, r.output
        else:
            assert r.exit_code == 1 and f"{path}:{line}: error [BAD_ACTION_DATA]" in r.output, r.output
            assert "does not fit in 48 bits" in r.output and len(r.output) < 300
