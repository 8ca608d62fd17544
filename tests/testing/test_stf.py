"""STF parsing (p4c tools/stf + the BMv2 driver's extensions), key translation and packet comparison."""
from __future__ import annotations

import pytest

from dataplane.control import ops
from dataplane.control.config_errors import ConfigError
from dataplane.control.keys import ExactKey, LpmKey, TernaryKey
from dataplane.errors import DataplaneError
from dataplane.testing.stf import (
    Add,
    CheckCounter,
    Expect,
    NoPacket,
    Packet,
    Remove,
    SetDefault,
    Wait,
    describe_mismatch,
    expect_matches,
    order_action_args,
    parse_stf,
    resolve_key_name,
    resolve_suffix,
    stf_default_key,
    stf_key_to_match,
    stf_number,
    stf_priority_to_bmv2,
)


def one(text: str):
    cmds = parse_stf(text, "t.stf")
    assert len(cmds) == 1
    return cmds[0]


def error_of(text: str) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        parse_stf(text, "t.stf")
    return info.value


# -- commands -----------------------------------------------------------------------------

def test_add_with_priority_ternary_value_and_qualified_action():
    """ternary2-bmv2.stf's shape: priority after the table, '*' nibbles, args as text."""
    c = one("add test1 503 data.f1:0x****0202 ingress.setb1(val:7, port:3)")
    assert c == Add(table="test1", priority=503, keys=[("data.f1", "0x****0202")], action="ingress.setb1",
                    args=[("val", "7"), ("port", "3")], line=1)


def test_add_without_priority_lpm_slash_and_entry_id():
    c = one("add ipv4_lpm hdr.ipv4.dstAddr:0x0a000000/8 fwd(port:0b11) = E1")
    assert c.priority is None
    assert c.keys == [("hdr.ipv4.dstAddr", "0x0a000000/8")]
    assert c.args == [("port", "0b11")]
    assert c.entry_id == "E1"


def test_add_several_keys_and_no_args():
    c = one("add c.t e:4 f:0x10 c.a()")
    assert c.table == "c.t" and c.keys == [("e", "4"), ("f", "0x10")] and c.action == "c.a" and c.args == []


def test_dollar_index_in_key_names_becomes_brackets_but_dollar_valid_stays():
    c = one("add t extra$0.h:1 hs$12.f:2 data.$valid$:0b1 a()")
    assert [k for k, _ in c.keys] == ["extra[0].h", "hs[12].f", "data.$valid$"]


def test_bracket_index_in_names_is_accepted():
    c = one("add t hdr.stack[1].f:1 a()")
    assert c.keys == [("hdr.stack[1].f", "1")]


def test_quoted_identifiers_are_names():
    c = one('add "ingress.t" "k.f":1 "ingress.a"(x:2)')
    assert (c.table, c.keys, c.action) == ("ingress.t", [("k.f", "1")], "ingress.a")


def test_keywords_are_case_insensitive_and_names_keep_case():
    cmds = parse_stf("ADD Tab K:1 Act()\nSetDefault Tab Drop()\nWAIT\n", "t.stf")
    assert isinstance(cmds[0], Add) and cmds[0].table == "Tab"
    assert cmds[1] == SetDefault(table="Tab", action="Drop", args=[], line=2)
    assert cmds[2] == Wait(line=3)


def test_comments_blank_lines_and_line_numbers():
    cmds = parse_stf("# header\n\n  wait # trailing\n\n# x\nwait\n", "t.stf")
    assert [c.line for c in cmds] == [3, 6]


def test_statement_may_continue_on_next_line_like_p4c():
    """A line whose first identifier is not a command continues the statement (ply ignores newlines)."""
    c = one("add t\n  k:1\n  a(x:2)\n")
    assert c.line == 1 and c.keys == [("k", "1")] and c.args == [("x", "2")]


def test_packet_data_concatenates_hex_and_decimal_runs():
    c = one("packet 2 0101 0a0B 99\tff")
    assert c == Packet(port=2, data=bytes.fromhex("01010a0b99ff"), line=1)


def test_packet_port_is_the_first_decimal_run():
    """As in p4c's packet-data lexer, 'packet 00a0' is port 00 followed by data a0."""
    c = one("packet 00a0")
    assert c.port == 0 and c.data == b"\xa0"


def test_expect_pattern_with_wildcards_and_dollar():
    c = one("expect 1 *1010101 0303 **$")
    assert c == Expect(port=1, pattern="*1010101" "0303" "**", exact_end=True, line=1)


def test_expect_without_data_means_any_packet():
    c = one("expect 5")
    assert c.pattern is None and not c.exact_end
    assert expect_matches(c.pattern, c.exact_end, b"\x00" * 9)


def test_no_packet_wait_remove_all():
    assert parse_stf("no_packet\nwait\nremove all\n", "t.stf") == [NoPacket(line=1), Wait(line=2),
                                                                  Remove(line=3)]


def test_check_counter_forms():
    a, b = parse_stf("check_counter cntDum(10) packets == 2\ncheck_counter cnt($A)\n", "t.stf")
    assert a == CheckCounter(counter="cntDum", index="10", count_type="packets", op="==", value=2, line=1)
    assert b == CheckCounter(counter="cnt", index="$A", line=2)
    assert b.count_type is None and b.op == "==" and b.value == 0


def test_check_counter_comparison_operators():
    for op in ("==", "!=", "<", "<=", ">", ">="):
        assert one(f"check_counter c(1) bytes {op} 0x10").op == op


def test_bmv2_pass_through_commands_become_control_ops():
    text = """mirroring_add 5 3
mirroring_add_mc 6 2
mirroring_delete 5
mirroring_get 6
mc_mgrp_create 1
mc_node_create 0 1 2 3
mc_node_update 0 4
mc_node_associate 1 0
counter_read ingress.c 3
counter_write ingress.c 3 10 640
register_read r 1
register_write ingress.r 0 0x10
register_reset ingress.r
meter_get_rates m 2
meter_set_rates m 2 0.5:10 1:20
meter_array_set_rates m 0.000001:1
"""
    cmds = parse_stf(text, "t.stf")
    assert cmds[0] == ops.MirroringAdd(session=5, port=3)
    assert cmds[1] == ops.MirroringAddMc(session=6, group=2)
    assert cmds[5] == ops.McNodeCreate(rid=0, ports=[1, 2, 3])
    assert cmds[6] == ops.McNodeUpdate(handle=0, ports=[4])
    assert cmds[7] == ops.McNodeAssociate(group=1, handle=0)
    assert cmds[9] == ops.CounterWrite(counter="ingress.c", index=3, packets=10, bytes=640)
    assert cmds[11] == ops.RegisterWrite(register="ingress.r", index=0, value=16)
    assert cmds[14] == ops.MeterSetRates(meter="m", index=2, rates=[(0.5, 10), (1.0, 20)])
    assert cmds[15] == ops.MeterArraySetRates(meter="m", rates=[(0.000001, 1)])
    assert [c.line for c in cmds] == list(range(1, 17))
    assert cmds[4].source == ("t.stf", 5)


# -- errors -------------------------------------------------------------------------------

def test_error_message_has_file_line_and_token():
    e = error_of("wait\nadd t k:1 a(x 2)\n")
    assert str(e) == "t.stf:2: error: expected ':' after argument 'x', got '2'"
    assert (e.file, e.line, e.token) == ("t.stf", 2, "2")
    assert isinstance(e, DataplaneError)


def test_error_unknown_command_at_line_start():
    e = error_of("wait\n\nfrobnicate 1 2\n")
    assert e.line == 3 and "expected a command" in str(e) and "'frobnicate'" in str(e)
    assert "did you mean 'expect'" in str(error_of("expct 1 00"))


def test_error_odd_packet_data():
    e = error_of("\npacket 0 abc\n")
    assert str(e) == "t.stf:2: error: packet data has an odd number of hex digits (3)"


def test_error_wildcard_or_dollar_in_packet_data():
    assert "only allowed in expect data" in str(error_of("packet 0 00**"))
    assert error_of("packet 0 00 $").line == 1


def test_error_dollar_not_last_in_expect():
    e = error_of("expect 1 00 $ 11")
    assert "'$' must be the last" in str(e)


def test_error_invalid_character_in_packet_data():
    e = error_of("expect 1 00\nexpect 2 0g\n")
    assert e.line == 2 and "invalid packet data character 'g'" in str(e)


def test_error_add_without_keys_and_missing_paren():
    assert "at least one KEY:VALUE" in str(error_of("add t a()"))
    e = error_of("add t k:1 a(x:1\nwait\n")
    assert e.line == 2 and "expected ',' or ')'" in str(e)


def test_error_truncated_statement_reports_its_line():
    e = error_of("wait\nsetdefault t\n")
    assert e.line == 2 and "end of file" in str(e)


def test_error_wildcard_in_pass_through_number():
    e = error_of("register_write r 0 0x1*")
    assert "'*' digits" in str(e) and e.token == "0x1*"


def test_error_unexpected_trailing_token():
    e = error_of("wait 5")
    assert str(e) == "t.stf:1: error: unexpected '5' after the wait command"


def test_error_bad_character():
    e = error_of("add t k:1 a() ; \n")
    assert "unexpected character ';'" in str(e)


# -- keys ---------------------------------------------------------------------------------

def test_ternary_key_mask_covers_written_digits_only():
    assert stf_key_to_match("0x****0101", "ternary", 32) == TernaryKey(0x0101, 0x0000FFFF)
    assert stf_key_to_match("0x1*", "ternary", 16) == TernaryKey(0x10, 0xF0)
    assert stf_key_to_match("0b1*0", "ternary", 3) == TernaryKey(0b100, 0b101)


def test_lpm_key_prefix_from_digits_or_slash():
    assert stf_key_to_match("0x0a01****", "lpm", 32) == LpmKey(0x0A010000, 16)
    assert stf_key_to_match("0x0a000000/8", "lpm", 32) == LpmKey(0x0A000000, 8)
    assert stf_key_to_match("167772160/8", "lpm", 32) == LpmKey(0x0A000000, 8)
    assert stf_key_to_match("0b10**", "lpm", 4) == LpmKey(0b1000, 2)


def test_exact_key_and_defaults():
    assert stf_key_to_match("0x0800", "exact", 16) == ExactKey(0x800)
    assert stf_key_to_match("7", "exact", 8) == ExactKey(7)
    assert stf_default_key("ternary") == TernaryKey(0, 0)
    assert stf_default_key("lpm") == LpmKey(0, 0)
    assert stf_default_key("exact") == ExactKey(0)


def test_key_errors_name_the_command_line():
    where = ("t.stf", 7)
    with pytest.raises(ConfigError, match=r"^t\.stf:7: error: ternary key value '12' is not supported"):
        stf_key_to_match("12", "ternary", 8, where)
    with pytest.raises(ConfigError, match="lpm key value '10' is not supported"):
        stf_key_to_match("10", "lpm", 32, where)
    with pytest.raises(ConfigError, match="does not fit in 8 bits"):
        stf_key_to_match("0x100", "exact", 8, where)
    with pytest.raises(ConfigError, match="range keys cannot be set from STF"):
        stf_key_to_match("1", "range", 8, where)
    with pytest.raises(ConfigError, match="only ternary and lpm keys"):
        stf_key_to_match("0x1*", "exact", 8, where)


def test_stf_number_and_priority_inversion():
    assert [stf_number(t) for t in ("10", "0x1F", "0b101", "0o17")] == [10, 31, 5, 15]
    assert stf_priority_to_bmv2(503) < stf_priority_to_bmv2(1)  # larger STF priority wins


def test_resolve_key_name_lookup_order():
    keys = ["hdr.ipv4.dstAddr", "standard_metadata.mcast_grp", "h.$valid$", "meta.x$"]
    assert resolve_key_name("hdr.ipv4.dstAddr", keys) == "hdr.ipv4.dstAddr"
    assert resolve_key_name("meta.x", keys) == "meta.x$"
    assert resolve_key_name("h", keys) == "h.$valid$"
    assert resolve_key_name("h.valid", keys) == "h.$valid$"
    assert resolve_key_name("mcast_grp", keys) == "standard_metadata.mcast_grp"
    assert resolve_key_name("valid", keys) == "h.$valid$"
    assert resolve_key_name("s$1.f", ["hdr.s[1].f"]) == "hdr.s[1].f"
    with pytest.raises(ConfigError, match="table has no key 'nope'"):
        resolve_key_name("nope", keys, ("t.stf", 3))


def test_resolve_suffix_and_action_argument_order():
    tables = ["ingress.c.t", "ingress.t2", "egress.t2"]
    assert resolve_suffix("c.t", tables) == "ingress.c.t"
    assert resolve_suffix("ingress.t2", tables) == "ingress.t2"
    with pytest.raises(ConfigError, match="ambiguous"):
        resolve_suffix("t2", tables)
    assert order_action_args([("port", "3"), ("val", "7")], ["val", "port"]) == ["7", "3"]
    with pytest.raises(ConfigError, match="needs a value for parameter"):
        order_action_args([("val", "7")], ["val", "port"], "setb1")
    with pytest.raises(ConfigError, match="has no parameter 'bogus'"):
        order_action_args([("bogus", "7")], ["val"], "setb1")


# -- expect comparison --------------------------------------------------------------------

def test_expect_prefix_match_and_wildcards():
    pkt = bytes.fromhex("0102030405")
    assert expect_matches("0102", False, pkt)  # longer packet passes without '$'
    assert expect_matches("01*203", False, pkt)
    assert not expect_matches("010203040506", False, pkt)  # shorter packet fails
    assert not expect_matches("0103", False, pkt)


def test_expect_dollar_requires_exact_length():
    pkt = bytes.fromhex("0102")
    assert expect_matches("0102", True, pkt)
    assert not expect_matches("01", True, pkt)
    assert expect_matches("01", False, pkt)


def test_describe_mismatch_points_at_the_first_differing_nibble():
    assert describe_mismatch("0102", False, bytes.fromhex("0102ff")) == ""
    text = describe_mismatch("00 01 ** 03 04", True, bytes.fromhex("0001ff0305"))
    lines = text.splitlines()
    assert lines[0] == "expected exactly 5 byte(s), received 5"
    assert lines[1] == "first difference at byte 4 (nibble 9): expected '4', received '5'"
    assert lines[2].endswith("expected  00 01 ** 03 04")
    assert lines[3].endswith("received  00 01 FF 03 05")
    assert lines[4].index("^") == lines[3].index("05") + 1


def test_describe_mismatch_short_and_long_packets():
    short = describe_mismatch("00010203", False, b"\x00\x01")
    assert "received packet ends at byte 2" in short and ".. .." in short
    extra = describe_mismatch("0001", True, b"\x00\x01\x02")
    assert "1 extra byte(s)" in extra
