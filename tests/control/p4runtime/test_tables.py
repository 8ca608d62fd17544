"""Table entries over P4Runtime: every match kind, priorities, defaults, const tables,
canonical bytestrings, error details and the atomicity modes; checked by reading back
and by sending packets through the switch."""
from __future__ import annotations

import grpc
import pytest
from google.rpc import code_pb2, status_pb2
from p4.v1 import p4runtime_pb2
from scapy.layers.inet import IP
from scapy.layers.l2 import Ether

U = p4runtime_pb2.Update
T_EXACT, T_LPM, T_TERNARY, T_RANGE, T_ECMP, T_CONST = range(33554433, 33554439)
NO_ACTION, SET_PORT, DROP, FORWARD, MARK = range(16777217, 16777222)


def entry(table, action=None, params=(), priority=0, **match):
    """A TableEntry; ``match`` maps field id (f1, f2) to ("exact", v) / ("lpm", v, len) / ..."""
    e = p4runtime_pb2.TableEntry(table_id=table, priority=priority)
    for key, spec in sorted(match.items()):
        fm = e.match.add(field_id=int(key[1:]))
        kind, *vals = spec
        if kind == "exact":
            fm.exact.value = vals[0]
        elif kind == "lpm":
            fm.lpm.value, fm.lpm.prefix_len = vals
        elif kind == "ternary":
            fm.ternary.value, fm.ternary.mask = vals
        elif kind == "range":
            fm.range.low, fm.range.high = vals
        elif kind == "optional":
            fm.optional.value = vals[0]
    if action is not None:
        e.action.action.action_id = action
        for i, p in enumerate(params, 1):
            e.action.action.params.add(param_id=i, value=p)
    return e


def update(kind, e):
    u = U(type=kind)
    u.entity.table_entry.CopyFrom(e)
    return u


def read_table(client, table=0, **kw):
    q = p4runtime_pb2.Entity()
    q.table_entry.table_id = table
    for k, v in kw.items():
        if k == "match":
            q.table_entry.match.extend(v)
        elif k == "counter_data":
            q.table_entry.counter_data.CopyFrom(v)
        else:
            setattr(q.table_entry, k, v)
    return [e.table_entry for e in client.read(q)]


def send(server, packet, port=1):
    out = []
    stop = server.live.listen(lambda p, d: out.append((p, d)))
    server.live.inject(port, bytes(packet))
    stop()
    return out


def ip(dst="10.0.0.1", src="192.168.0.1", ttl=64, proto=6):
    return Ether(dst="00:00:00:00:00:01", src="00:00:00:00:00:02") / IP(src=src, dst=dst, ttl=ttl, proto=proto)


def ports(server, packet):
    return [p for p, _ in send(server, packet)]


def failure(err) -> list:
    """The p4.v1.Error details of a failed Write: (code, message) per update."""
    raw = dict(err.trailing_metadata())["grpc-status-details-bin"]
    status = status_pb2.Status.FromString(raw)
    out = []
    for d in status.details:
        e = p4runtime_pb2.Error()
        d.Unpack(e)
        out.append((e.canonical_code, e.message))
    return out


def test_exact_insert_read_modify_delete(rt):
    server, c = rt
    mac = b"\x00\x00\x00\x00\x00\x01"
    c.write(update(U.INSERT, entry(T_EXACT, SET_PORT, [b"\x05"], f1=("exact", mac))))
    assert ports(server, Ether(dst="00:00:00:00:00:01", type=0x9000) / (b"x" * 4)) == [5]
    [got] = read_table(c, T_EXACT)
    # canonical form: leading zero bytes stripped
    assert got.match[0].exact.value == b"\x01" and got.action.action.params[0].value == b"\x05"
    c.write(update(U.MODIFY, entry(T_EXACT, SET_PORT, [b"\x00\x07"], f1=("exact", b"\x01"))))
    assert ports(server, Ether(dst="00:00:00:00:00:01", type=0x9000) / (b"x" * 4)) == [7]
    c.write(update(U.DELETE, entry(T_EXACT, f1=("exact", mac))))
    assert read_table(c, T_EXACT) == []


def test_lpm_longest_prefix_and_direct_counter_in_the_read(rt):
    server, c = rt
    c.write(update(U.INSERT, entry(T_LPM, FORWARD, [b"\xaa", b"\x02"], f1=("lpm", bytes([10, 0, 0, 0]), 8))),
            update(U.INSERT, entry(T_LPM, FORWARD, [b"\xbb", b"\x03"], f1=("lpm", bytes([10, 0, 0, 0]), 24))))
    assert ports(server, ip("10.0.0.9")) == [3] and ports(server, ip("10.9.0.9")) == [2]
    got = read_table(c, T_LPM, counter_data=p4runtime_pb2.CounterData())
    by_len = {e.match[0].lpm.prefix_len: e for e in got}
    assert by_len[24].counter_data.packet_count == 1 and by_len[8].counter_data.packet_count == 1
    assert by_len[24].match[0].lpm.value == bytes([10, 0, 0, 0])


def test_ternary_priorities_and_wildcard_by_omission(rt):
    server, c = rt
    c.write(update(U.INSERT, entry(T_TERNARY, SET_PORT, [b"\x04"], priority=10,
                                   f1=("ternary", bytes([192, 168, 0, 0]), bytes([255, 255, 0, 0])))),
            update(U.INSERT, entry(T_TERNARY, SET_PORT, [b"\x06"], priority=20,
                                   f1=("ternary", bytes([192, 168, 0, 1]), b"\xff\xff\xff\xff"))),
            update(U.INSERT, entry(T_TERNARY, SET_PORT, [b"\x08"], priority=1)))   # matches everything
    assert ports(server, ip(src="192.168.0.1")) == [6]     # larger priority wins
    assert ports(server, ip(src="192.168.7.7")) == [4]
    assert ports(server, ip(src="8.8.8.8")) == [8]
    got = {e.priority: e for e in read_table(c, T_TERNARY)}
    assert not got[1].match and got[10].match[0].ternary.mask == b"\xff\xff\x00\x00"
    # same key, other priority: a different entry; same key and priority: ALREADY_EXISTS
    with pytest.raises(grpc.RpcError) as err:
        c.write(update(U.INSERT, entry(T_TERNARY, SET_PORT, [b"\x01"], priority=1)))
    assert failure(err.value)[0][0] == code_pb2.ALREADY_EXISTS


def test_range_and_optional(rt):
    server, c = rt
    c.write(update(U.INSERT, entry(T_RANGE, SET_PORT, [b"\x09"], priority=5, f1=("range", b"\x10", b"\x20"),
                                   f2=("optional", b"\x11"))),
            update(U.INSERT, entry(T_RANGE, SET_PORT, [b"\x0a"], priority=4, f1=("range", b"\x10", b"\x40"))))
    assert ports(server, ip(ttl=0x15, proto=0x11)) == [9]
    assert ports(server, ip(ttl=0x15, proto=6)) == [10]
    assert ports(server, ip(ttl=0x50, proto=6)) == [0]       # no hit: egress_spec stays 0
    got = {e.priority: e for e in read_table(c, T_RANGE)}
    assert [m.field_id for m in got[4].match] == [1] and got[5].match[1].optional.value == b"\x11"


def test_bad_values_get_the_spec_codes(rt):
    _, c = rt
    cases = [
        (entry(T_EXACT, SET_PORT, [b"\x05"], f1=("exact", b"\x01" * 7)), code_pb2.OUT_OF_RANGE),  # 56 bits > 48
        (entry(T_EXACT, SET_PORT, [b"\x02\x00"], f1=("exact", b"\x01")), code_pb2.OUT_OF_RANGE),  # 512 > 9 bits
        (entry(T_LPM, DROP, f1=("lpm", bytes([10, 0, 0, 1]), 24)), code_pb2.INVALID_ARGUMENT),  # bits past prefix
        (entry(T_LPM, DROP, f1=("lpm", bytes([0, 0, 0, 0]), 0)), code_pb2.INVALID_ARGUMENT),  # explicit don't care
        (entry(T_TERNARY, SET_PORT, [b"\x01"], priority=1, f1=("ternary", b"\x03", b"\x01")), code_pb2.INVALID_ARGUMENT),
        (entry(T_TERNARY, SET_PORT, [b"\x01"], f1=("ternary", b"\x01", b"\x01")), code_pb2.INVALID_ARGUMENT),  # no prio
        (entry(T_EXACT, SET_PORT, [b"\x01"], priority=3, f1=("exact", b"\x01")), code_pb2.INVALID_ARGUMENT),
        (entry(T_EXACT, FORWARD, [b"\x01", b"\x01"], f1=("exact", b"\x01")), code_pb2.INVALID_ARGUMENT),  # not its action
        (entry(T_LPM, NO_ACTION, f1=("lpm", bytes([10, 0, 0, 0]), 8)), code_pb2.INVALID_ARGUMENT),  # @defaultonly
        (entry(T_EXACT, SET_PORT, [], f1=("exact", b"\x01")), code_pb2.INVALID_ARGUMENT),  # missing param
        (entry(T_EXACT, SET_PORT, [b"\x01"]), code_pb2.INVALID_ARGUMENT),  # exact field missing
        (entry(99, SET_PORT, [b"\x01"]), code_pb2.NOT_FOUND),
    ]
    for e, code in cases:
        with pytest.raises(grpc.RpcError) as err:
            c.write(update(U.INSERT, e))
        assert err.value.code() == grpc.StatusCode.UNKNOWN
        assert [d[0] for d in failure(err.value)] == [code], e
    with pytest.raises(grpc.RpcError) as err:
        c.write(update(U.MODIFY, entry(T_EXACT, SET_PORT, [b"\x01"], f1=("exact", b"\x09"))),
                update(U.DELETE, entry(T_EXACT, f1=("exact", b"\x09"))))
    assert [d[0] for d in failure(err.value)] == [code_pb2.NOT_FOUND, code_pb2.NOT_FOUND]


def test_default_entry_modify_read_and_reset(rt):
    server, c = rt
    d = entry(T_TERNARY, SET_PORT, [b"\x0c"])
    d.is_default_action = True
    c.write(update(U.MODIFY, d))
    assert ports(server, ip()) == [12]
    [got] = read_table(c, T_TERNARY, is_default_action=True)
    assert got.action.action.action_id == SET_PORT and got.action.action.params[0].value == b"\x0c"
    reset = p4runtime_pb2.TableEntry(table_id=T_TERNARY, is_default_action=True)
    c.write(update(U.MODIFY, reset))      # no action: back to the program's default
    assert read_table(c, T_TERNARY, is_default_action=True)[0].action.action.action_id == NO_ACTION
    with pytest.raises(grpc.RpcError) as err:
        c.write(update(U.INSERT, d))
    assert failure(err.value)[0][0] == code_pb2.INVALID_ARGUMENT


def test_const_tables_are_read_only_but_readable(rt):
    _, c = rt
    [const] = read_table(c, T_CONST)
    assert const.match[0].exact.value == b"\xee" and const.action.action.action_id == MARK
    for kind, e in ((U.INSERT, entry(T_CONST, MARK, [b"\x01"], f1=("exact", b"\x01"))),
                    (U.DELETE, entry(T_CONST, f1=("exact", b"\xee")))):
        with pytest.raises(grpc.RpcError) as err:
            c.write(update(kind, e))
        assert failure(err.value)[0][0] == code_pb2.PERMISSION_DENIED


def test_wildcard_reads_all_tables_one_key(rt):
    _, c = rt
    c.write(update(U.INSERT, entry(T_EXACT, SET_PORT, [b"\x05"], f1=("exact", b"\x01"))),
            update(U.INSERT, entry(T_EXACT, SET_PORT, [b"\x06"], f1=("exact", b"\x02"))),
            update(U.INSERT, entry(T_LPM, DROP, f1=("lpm", bytes([10, 0, 0, 0]), 8))))
    assert len(read_table(c)) == 4           # three written plus the const entry
    [one] = read_table(c, T_EXACT, match=[entry(T_EXACT, f1=("exact", b"\x00\x02")).match[0]])
    assert one.action.action.params[0].value == b"\x06"


def test_continue_on_error_applies_the_good_updates(rt):
    _, c = rt
    good = update(U.INSERT, entry(T_EXACT, SET_PORT, [b"\x05"], f1=("exact", b"\x01")))
    bad = update(U.INSERT, entry(T_EXACT, SET_PORT, [b"\x05"], f1=("exact", b"\x01" * 8)))
    with pytest.raises(grpc.RpcError) as err:
        c.write(good, bad)
    assert [d[0] for d in failure(err.value)] == [code_pb2.OK, code_pb2.OUT_OF_RANGE]
    assert len(read_table(c, T_EXACT)) == 1


@pytest.mark.parametrize("atomicity", [p4runtime_pb2.WriteRequest.ROLLBACK_ON_ERROR,
                                       p4runtime_pb2.WriteRequest.DATAPLANE_ATOMIC])
def test_rollback_undoes_the_batch(rt, atomicity):
    server, c = rt
    c.write(update(U.INSERT, entry(T_EXACT, SET_PORT, [b"\x05"], f1=("exact", b"\x01"))))
    batch = [update(U.MODIFY, entry(T_EXACT, SET_PORT, [b"\x06"], f1=("exact", b"\x01"))),
             update(U.INSERT, entry(T_EXACT, SET_PORT, [b"\x07"], f1=("exact", b"\x02"))),
             update(U.DELETE, entry(T_EXACT, f1=("exact", b"\x01"))),
             update(U.INSERT, entry(T_EXACT, SET_PORT, [b"\x07"], f1=("exact", b"\x03"))),
             update(U.INSERT, entry(T_EXACT, SET_PORT, [b"\x07"], f1=("exact", b"\x02")))]   # duplicate: fails
    with pytest.raises(grpc.RpcError) as err:
        c.write(*batch, atomicity=atomicity)
    codes = [d[0] for d in failure(err.value)]
    assert codes == [code_pb2.ABORTED] * 4 + [code_pb2.ALREADY_EXISTS]
    [left] = read_table(c, T_EXACT)
    assert left.match[0].exact.value == b"\x01" and left.action.action.params[0].value == b"\x05"
