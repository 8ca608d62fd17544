"""P4Runtime ids and aliases (dataplane.control.p4info.ids)."""
from __future__ import annotations

import pytest

pytest.importorskip("p4.config.v1.p4info_pb2")

from dataplane.control.p4info import ids  # noqa: E402
from dataplane.control.p4info.ids import P4InfoError, SymbolTable, hashed_id, jenkins_one_at_a_time  # noqa: E402


def test_one_at_a_time_matches_the_published_test_vectors():
    # Bob Jenkins' one-at-a-time test values: "a" and the pangram
    assert jenkins_one_at_a_time(b"a") == 0xCA2E9442
    assert jenkins_one_at_a_time(b"The quick brown fox jumps over the lazy dog") == 0x519E91F5
    assert jenkins_one_at_a_time(b"") == 0


def test_an_id_is_the_prefix_over_the_low_24_bits_of_the_hash():
    assert hashed_id(ids.ACTION, "a") == 0x012E9442
    assert hashed_id(ids.TABLE, "a") == 0x022E9442
    assert hashed_id(ids.REGISTER, "a") == 0x162E9442


def _colliding_names() -> tuple[str, str]:
    seen: dict[int, str] = {}
    for i in range(200_000):
        name = f"c.t{i}"
        low = jenkins_one_at_a_time(name.encode()) & 0xFFFFFF
        if low in seen:
            return seen[low], name
        seen[low] = name
    raise AssertionError("no collision found")


def test_a_collision_moves_the_later_name_in_sorted_order_to_the_next_id():
    first, second = sorted(_colliding_names())
    for order in ((first, second), (second, first)):   # declaration order does not matter
        s = SymbolTable()
        for name in order:
            s.add(ids.TABLE, name)
        s.compute_ids()
        assert s.id(ids.TABLE, first) == hashed_id(ids.TABLE, first)
        assert s.id(ids.TABLE, second) == hashed_id(ids.TABLE, first) + 1


def test_a_user_id_gets_the_prefix_and_keeps_its_value():
    s = SymbolTable()
    s.add(ids.ACTION, "x", 5)
    s.add(ids.ACTION, "y", 0x01000007)
    s.compute_ids()
    assert s.id(ids.ACTION, "x") == 0x01000005
    assert s.id(ids.ACTION, "y") == 0x01000007


def test_a_hashed_name_skips_an_id_a_user_took():
    taken = hashed_id(ids.ACTION, "x")
    s = SymbolTable()
    s.add(ids.ACTION, "other", taken)
    s.add(ids.ACTION, "x")
    s.compute_ids()
    assert s.id(ids.ACTION, "x") == taken + 1


def test_wrong_prefix_and_duplicate_user_ids_are_errors():
    with pytest.raises(P4InfoError, match="wrong 8-bit prefix"):
        SymbolTable().add(ids.ACTION, "x", 0x02000001)
    s = SymbolTable()
    s.add(ids.TABLE, "a", 1)
    with pytest.raises(P4InfoError, match="multiple declarations"):
        s.add(ids.TABLE, "b", 1)


def test_an_alias_is_the_shortest_unique_suffix_over_every_kind():
    s = SymbolTable()
    s.add(ids.TABLE, "ingress.c1.t")
    s.add(ids.TABLE, "ingress.c2.t")
    s.add(ids.ACTION, "ingress.a")
    s.add(ids.COUNTER, "egress.a")
    s.add(ids.TABLE, "ingress.u")
    assert s.alias("ingress.c1.t") == "c1.t"
    assert s.alias("ingress.a") == "ingress.a"
    assert s.alias("egress.a") == "egress.a"
    assert s.alias("ingress.u") == "u"
