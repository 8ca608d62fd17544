"""Control-plane file formats: values, simple_switch_CLI command files, tutorials runtime JSON."""
from __future__ import annotations

import json

import pytest

from dataplane.control.formats import (
    CliCommands,
    CloneSessionEntry,
    ConfigError,
    CounterRead,
    CounterReset,
    CounterWrite,
    ExactKey,
    LpmKey,
    McGroupCreate,
    McGroupDestroy,
    McGroupEntry,
    McNodeAssociate,
    McNodeCreate,
    McNodeDestroy,
    McNodeDissociate,
    McNodeUpdate,
    MeterArraySetRates,
    MeterGetRates,
    MeterSetRates,
    MirroringAdd,
    MirroringAddMc,
    MirroringDelete,
    MirroringGet,
    RangeKey,
    RegisterRead,
    RegisterReset,
    RegisterWrite,
    Replica,
    RuntimeConfig,
    SetDefault,
    TableAdd,
    TableClear,
    TableDelete,
    TableModify,
    TableResetDefault,
    TernaryKey,
    ValueSyntaxError,
    load_control_file,
    parse_cli_commands,
    parse_key,
    parse_number,
    parse_runtime_json,
    parse_value,
)
from dataplane.errors import DataplaneError


def cli(text: str) -> CliCommands:
    return parse_cli_commands(text, "s1-commands.txt")


def cli_error(text: str) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        cli(text)
    return info.value


def rt_error(text: str) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        parse_runtime_json(text, "s1-runtime.json")
    return info.value


# -- values -------------------------------------------------------------------------------

def test_parse_value_numbers():
    assert parse_value("42") == 42
    assert parse_value("0x2A") == 42
    assert parse_value("0b101") == 5
    assert parse_value("0o17") == 15
    assert parse_value("1_000") == 1000
    assert parse_value(" 7 ") == 7


def test_parse_value_addresses():
    assert parse_value("10.0.1.1") == 0x0A000101
    assert parse_value("08:00:00:00:01:11") == 0x080000000111
    assert parse_value("0:1:2:3:4:5") == 0x000102030405
    assert parse_value("2001:db8::1") == 0x20010DB8000000000000000000000001
    assert parse_value("::ffff:10.0.0.1") == 0xFFFF0A000001


def test_parse_value_errors_are_dataplane_and_value_errors():
    for bad, msg in [("010", "must not start with 0"), ("256.0.0.1", "octet above 255"),
                     ("1:2:3", "not a MAC or IPv6"), ("abc", "not a number, IPv4"), ("", "empty")]:
        with pytest.raises(ValueSyntaxError, match=msg) as info:
            parse_value(bad)
        assert isinstance(info.value, DataplaneError) and isinstance(info.value, ValueError)
    with pytest.raises(ValueSyntaxError):
        parse_number("10.0.0.1")


# -- CLI keys -----------------------------------------------------------------------------

def test_parse_key_forms():
    assert parse_key("5") == ExactKey(5)
    assert parse_key("10.0.0.0/8") == LpmKey(0x0A000000, 8)
    assert parse_key("0x0800&&&0xFFFF") == TernaryKey(0x800, 0xFFFF)
    assert parse_key("10.0.0.0&&&255.0.0.0") == TernaryKey(0x0A000000, 0xFF000000)
    assert parse_key("1->1024") == RangeKey(1, 1024)
    assert parse_key("2001:db8::/32") == LpmKey(0x20010DB8 << 96, 32)
    assert parse_key("aa:bb:cc:dd:ee:ff").value == 0xAABBCCDDEEFF


def test_parse_key_keeps_text_but_compares_by_value():
    k = parse_key("0x0a/8")
    assert k.text == "0x0a/8" and k == LpmKey(10, 8)


# -- CLI commands -------------------------------------------------------------------------

EVERY_COMMAND = """\
# every command simple_switch_CLI files use
table_set_default MyIngress.ipv4_lpm drop
table_add ipv4_lpm ipv4_forward 10.0.1.1/32 => 08:00:00:00:01:11 1
table_add acl deny 0x0800&&&0xffff 1->100 => 7 10
table_add keyless act =>
table_modify ipv4_lpm ipv4_forward 0 => 08:00:00:00:01:12 2
table_modify ipv4_lpm ipv4_forward 1 00:00:00:00:00:01 3
table_delete ipv4_lpm 0
table_clear acl
table_reset_default ipv4_lpm
mc_mgrp_create 1
mc_node_create 0 1 2 3
mc_node_create 1 4 | 2
mc_node_update 1 5 6
mc_node_associate 1 0
mc_node_dissociate 1 0
mc_node_destroy 1
mc_mgrp_destroy 1
mirroring_add 100 3
mirroring_add_mc 101 1
mirroring_delete 100
mirroring_get 101
register_write MyIngress.r 0 0x10
register_read MyIngress.r 0
register_read MyIngress.r
register_reset MyIngress.r
counter_write c 1 10 640
counter_read c 1
counter_reset c
meter_set_rates m 0 0.0001:1 0.0005:2
meter_array_set_rates m 1:10 2:20
meter_get_rates m 0
"""


def test_cli_file_with_every_command():
    r = cli(EVERY_COMMAND)
    assert r.warnings == []
    assert r.ops == [
        SetDefault(table="MyIngress.ipv4_lpm", action="drop", params=[]),
        TableAdd(table="ipv4_lpm", action="ipv4_forward", keys=[LpmKey(0x0A000101, 32)],
                 params=[0x080000000111, 1], priority=None),
        TableAdd(table="acl", action="deny", keys=[TernaryKey(0x800, 0xFFFF), RangeKey(1, 100)], params=[7],
                 priority=10),
        TableAdd(table="keyless", action="act", keys=[], params=[]),
        TableModify(table="ipv4_lpm", action="ipv4_forward", handle=0, params=[0x080000000112, 2]),
        TableModify(table="ipv4_lpm", action="ipv4_forward", handle=1, params=[1, 3]),
        TableDelete(table="ipv4_lpm", handle=0),
        TableClear(table="acl"),
        TableResetDefault(table="ipv4_lpm"),
        McGroupCreate(group=1),
        McNodeCreate(rid=0, ports=[1, 2, 3]),
        McNodeCreate(rid=1, ports=[4], lags=[2]),
        McNodeUpdate(handle=1, ports=[5, 6]),
        McNodeAssociate(group=1, handle=0),
        McNodeDissociate(group=1, handle=0),
        McNodeDestroy(handle=1),
        McGroupDestroy(group=1),
        MirroringAdd(session=100, port=3),
        MirroringAddMc(session=101, group=1),
        MirroringDelete(session=100),
        MirroringGet(session=101),
        RegisterWrite(register="MyIngress.r", index=0, value=16),
        RegisterRead(register="MyIngress.r", index=0),
        RegisterRead(register="MyIngress.r", index=None),
        RegisterReset(register="MyIngress.r"),
        CounterWrite(counter="c", index=1, packets=10, bytes=640),
        CounterRead(counter="c", index=1),
        CounterReset(counter="c"),
        MeterSetRates(meter="m", index=0, rates=[(0.0001, 1), (0.0005, 2)]),
        MeterArraySetRates(meter="m", rates=[(1.0, 10), (2.0, 20)]),
        MeterGetRates(meter="m", index=0),
    ]
    assert [op.source for op in r.ops[:2]] == [("s1-commands.txt", 2), ("s1-commands.txt", 3)]
    assert r.ops[1].line == 3


def test_table_add_priority_resplit_once_table_kind_is_known():
    exact_looking = cli("table_add t a 5 => 1 20").ops[0]
    assert exact_looking.priority is None and exact_looking.params == [1, 20]
    fixed = exact_looking.with_priority_expected(True)
    assert fixed.params == [1] and fixed.priority == 20
    assert fixed.with_priority_expected(False).params == [1, 20]
    assert fixed.with_priority_expected(True) is fixed
    with pytest.raises(ConfigError, match="needs a priority"):
        cli("table_add t a 5 =>").ops[0].with_priority_expected(True)


def test_comments_blank_lines_and_warnings():
    r = cli("\n# comment\n   \ntable_dump t\nset_queue_rate 100 # inline\ntable_clear t # done\n")
    assert r.ops == [TableClear(table="t")] and r.ops[0].line == 6
    assert [str(w) for w in r.warnings] == [
        "s1-commands.txt:4: warning: 'table_dump' only prints; ignored",
        "s1-commands.txt:5: warning: 'set_queue_rate' is not supported by dataplane; ignored",
    ]


def test_cli_error_unknown_command_suggests():
    e = cli_error("table_clear t\ntable_ad t a 1 => 2\n")
    assert str(e) == "s1-commands.txt:2: error: unknown command 'table_ad'; did you mean 'table_add'?"
    assert (e.file, e.line, e.token) == ("s1-commands.txt", 2, "table_ad")


def test_cli_error_bad_key_and_param_name_the_token():
    e = cli_error("table_add t a 10.0.0.300/8 => 1")
    assert e.token == "10.0.0.300/8" and "bad match key '10.0.0.300/8'" in str(e)
    e = cli_error("table_add t a 1 => zz")
    assert str(e).startswith("s1-commands.txt:1: error: bad action parameter 'zz'")
    assert "must be VALUE&&&MASK" in str(cli_error("table_add t a 1&&&2&&&3 => 1"))
    assert "must be VALUE/PREFIX_LENGTH" in str(cli_error("table_add t a 1/2/3 =>"))


def test_cli_error_spaced_ternary_operator():
    e = cli_error("table_add t a 10.0.0.0 &&& 255.0.0.0 => 1 1")
    assert "without spaces" in str(e) and e.token == "&&&"


def test_cli_error_ternary_without_priority():
    e = cli_error("table_add t a 1&&&1 =>")
    assert "need a priority" in str(e)
    assert "bad priority 'x'" in str(cli_error("table_add t a 1&&&1 => 2 x"))


def test_cli_error_argument_counts():
    assert str(cli_error("table_delete t")) == (
        "s1-commands.txt:1: error: table_delete takes 2 argument(s) (table_delete TABLE HANDLE), got 1")
    assert "takes at least 1" in str(cli_error("mc_node_create"))
    assert "takes 1 to 2" in str(cli_error("register_read r 1 2"))


def test_cli_error_bad_numbers():
    e = cli_error("mc_node_create 0 1 two")
    assert e.token == "two" and "bad port 'two'" in str(e)
    assert "must not be negative" in str(cli_error("table_delete t -1"))
    assert "bad meter rate '0.5'" in str(cli_error("meter_set_rates m 0 0.5"))


# -- runtime JSON -------------------------------------------------------------------------

TUTORIAL_RUNTIME = """{
  "target": "bmv2",
  "p4info": "build/basic.p4.p4info.txtpb",
  "bmv2_json": "build/basic.json",
  "table_entries": [
    {
      "table": "MyIngress.ipv4_lpm",
      "default_action": true,
      "action_name": "MyIngress.drop",
      "action_params": { }
    },
    {
      "table": "MyIngress.ipv4_lpm",
      "match": {
        "hdr.ipv4.dstAddr": ["10.0.1.1", 32]
      },
      "action_name": "MyIngress.ipv4_forward",
      "action_params": {
        "dstAddr": "08:00:00:00:01:11",
        "port": 1
      }
    },
    {
      "table": "MyIngress.acl",
      "match": {"hdr.ipv4.protocol": ["0x11", "0xff"], "meta.ecmp_select": 0, "hdr.myTunnel.dst_id": [1]},
      "priority": 10,
      "action_name": "MyIngress.deny",
      "action_params": {}
    }
  ],
  "multicast_group_entries": [
    {"multicast_group_id": 1, "replicas": [{"egress_port": 1, "instance": 1}, {"egress_port": 2, "instance": 1}]}
  ],
  "clone_session_entries": [
    {"clone_session_id": 5, "replicas": [{"egress_port": 3, "instance": 0}], "packet_length_bytes": 64},
    {"clone_session_id": 6, "replicas": []}
  ]
}
"""


def test_runtime_json_tutorial_shape():
    cfg = parse_runtime_json(TUTORIAL_RUNTIME, "s1-runtime.json")
    assert isinstance(cfg, RuntimeConfig) and cfg.warnings == []
    assert (cfg.target, cfg.p4info, cfg.bmv2_json) == ("bmv2", "build/basic.p4.p4info.txtpb", "build/basic.json")
    default, fwd, acl = cfg.table_entries
    assert default.is_default and default.match == [] and default.action == "MyIngress.drop"
    assert default.source == ("s1-runtime.json", 6)
    assert fwd.match[0].field == "hdr.ipv4.dstAddr" and fwd.match[0].values == (0x0A000101, 32)
    assert fwd.params == {"dstAddr": 0x080000000111, "port": 1} and fwd.priority is None
    assert [m.values for m in acl.match] == [(0x11, 0xFF), (0,), (1,)] and acl.priority == 10
    assert cfg.multicast_group_entries == [McGroupEntry(1, [Replica(1, 1), Replica(2, 1)], ("s1-runtime.json", 32))]
    assert cfg.clone_session_entries[0] == CloneSessionEntry(5, [Replica(3, 0)], 64, ("s1-runtime.json", 35))
    assert cfg.clone_session_entries[1].packet_length_bytes == 0


def test_runtime_match_to_key_by_kind():
    cfg = parse_runtime_json(TUTORIAL_RUNTIME, "s1-runtime.json")
    fwd, acl = cfg.table_entries[1], cfg.table_entries[2]
    assert fwd.match[0].to_key("lpm") == LpmKey(0x0A000101, 32)
    assert acl.match[0].to_key("ternary") == TernaryKey(0x11, 0xFF)
    assert acl.match[0].to_key("range") == RangeKey(0x11, 0xFF)
    assert acl.match[1].to_key("exact") == ExactKey(0)
    assert acl.match[2].to_key("optional") == ExactKey(1)
    with pytest.raises(ConfigError, match=r"^s1-runtime\.json:25: error: lpm match field 'meta\.ecmp_select' "
                                          r"must be written \[value, prefix_len\]$"):
        acl.match[1].to_key("lpm")
    with pytest.raises(ConfigError, match="exact match field 'hdr.ipv4.protocol' takes one value, got 2"):
        acl.match[0].to_key("exact")


def test_runtime_json_syntax_error_has_line():
    e = rt_error('{\n  "table_entries": [\n    {"table": "t",}\n  ]\n}\n')
    assert e.line == 3 and str(e).startswith("s1-runtime.json:3: error: invalid JSON")


def test_runtime_json_bad_value_points_at_its_object():
    text = '{\n "table_entries": [\n  {\n   "table": "t",\n   "action_name": "a",\n' \
           '   "action_params": {\n     "port": "eth0"\n   }\n  }\n ]\n}'
    e = rt_error(text)
    assert e.line == 6 and e.token == "eth0"
    assert "bad value \"eth0\" for action parameter 'port'" in str(e)


def test_runtime_json_structural_errors():
    assert "missing 'table'" in str(rt_error('{"table_entries": [{"action_name": "a"}]}'))
    assert "missing 'action_name'" in str(rt_error('{"table_entries": [{"table": "t"}]}'))
    assert "must not have a 'match'" in str(rt_error(
        '{"table_entries": [{"table": "t", "default_action": true, "match": {"k": 1}, "action_name": "a"}]}'))
    assert "list of 1 or 2 values" in str(rt_error(
        '{"table_entries": [{"table": "t", "match": {"k": [1, 2, 3]}, "action_name": "a"}]}'))
    assert "'priority' must be an integer" in str(rt_error(
        '{"table_entries": [{"table": "t", "action_name": "a", "priority": "high"}]}'))
    assert "unknown target 'tofino'" in str(rt_error('{"target": "tofino"}'))
    assert "must hold a JSON object" in str(rt_error("[1, 2]"))


def test_runtime_json_replica_and_group_errors():
    e = rt_error('{"multicast_group_entries": [\n {"multicast_group_id": 1,\n'
                 '  "replicas": [\n   {"egress_port": 1}]}]}')
    assert e.line == 4 and "missing 'instance'" in str(e)
    assert "'multicast_group_id' must be a non-negative integer" in str(rt_error(
        '{"multicast_group_entries": [{"multicast_group_id": "1", "replicas": []}]}'))
    assert "'replicas' must be a list" in str(rt_error(
        '{"clone_session_entries": [{"clone_session_id": 1, "replicas": 3}]}'))


def test_runtime_json_unknown_keys_warn_and_minimal_file_parses():
    cfg = parse_runtime_json('{"table_entries": [{"table": "t", "action_name": "a", "comment": "x"}],'
                             ' "extra": 1}', "r.json")
    assert cfg.target is None and cfg.table_entries[0].params == {}
    assert sorted(w.message for w in cfg.warnings) == [
        "unknown key 'comment' in a table entry; ignored", "unknown key 'extra' in the runtime file; ignored"]


def test_runtime_json_value_forms():
    entry = {"table": "t", "action_name": "a",
             "action_params": {"a": 5, "b": "0x10", "c": True, "d": [7], "e": "2001:db8::1", "f": -1}}
    cfg = parse_runtime_json(json.dumps({"table_entries": [entry]}), "r.json")
    assert cfg.table_entries[0].params == {"a": 5, "b": 16, "c": 1, "d": 7, "e": 0x20010DB8 << 96 | 1, "f": -1}
    assert "expected an integer or a string" in str(rt_error(
        json.dumps({"table_entries": [{"table": "t", "action_name": "a", "action_params": {"x": 1.5}}]})))


# -- files and errors ---------------------------------------------------------------------

def test_load_control_file_dispatches_on_extension(tmp_path):
    (tmp_path / "s1-runtime.json").write_text(TUTORIAL_RUNTIME)
    (tmp_path / "s1-commands.txt").write_text("mc_mgrp_create 1\n")
    assert isinstance(load_control_file(tmp_path / "s1-runtime.json"), RuntimeConfig)
    assert load_control_file(tmp_path / "s1-commands.txt").ops == [McGroupCreate(group=1)]
    with pytest.raises(ConfigError, match="cannot read file"):
        load_control_file(tmp_path / "missing.txt")


def test_config_error_format_without_line():
    e = ConfigError("bad thing", "f.txt")
    assert str(e) == "f.txt: error: bad thing" and e.line == 0 and e.code == "config"
    assert str(ConfigError("x", "f.txt", 3, "tok")) == "f.txt:3: error: x"


def test_shipped_runtime_file_parses():
    from dataplane.resources import data_dir
    path = data_dir("programs") / "ipv4_router.json"
    cfg = load_control_file(path)
    assert cfg.table_entries[0].is_default and len(cfg.table_entries) == 5
    assert cfg.table_entries[-1].match[0].to_key("lpm") == LpmKey(0x0A000000, 8)


def test_tutorial_style_commands_file_with_full_names():
    r = cli("table_set_default MyIngress.ipv4_lpm MyIngress.drop\n"
            "table_add MyIngress.ipv4_lpm MyIngress.ipv4_forward 10.0.1.1/32 => 08:00:00:00:01:11 1\n"
            "table_add MyIngress.swtrace MyEgress.add_swtrace => 1\n")
    assert [type(op).__name__ for op in r.ops] == ["SetDefault", "TableAdd", "TableAdd"]
    assert r.ops[2].keys == [] and r.ops[2].params == [1]
    assert [k.kind for k in r.ops[1].keys] == ["lpm"]
    assert not r.ops[1].needs_priority_syntactically


def test_parse_number_forms():
    assert parse_number("-5") == -5
    assert parse_number("0xFF_FF") == 0xFFFF
    assert parse_number("0") == 0 and parse_number("00") == 0
    with pytest.raises(ValueSyntaxError, match="is not a number"):
        parse_number("0x")
