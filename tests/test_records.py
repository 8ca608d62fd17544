"""``record``'s Python 3.9 emulation behaves like ``dataclass`` with slots/kw_only on 3.10+.

The emulation (``records._emulate``) runs here on whatever Python runs the suite, so
CPython 3.11 checks it against the native behaviour; under PyPy 3.9 it is what the whole
package uses.
"""
from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from dataclasses import field

import pytest

from dataplane import records
from dataplane.records import KW_ONLY


def emulated(**options):
    return lambda cls: records._emulate(cls, **options)


@emulated(frozen=True, slots=True)
class Base:
    _: KW_ONLY
    span: str = "nowhere"


@emulated(frozen=True, slots=True)
class Child(Base):
    name: str
    width: int = 8


@emulated(frozen=True, kw_only=True)
class Op:
    source: str = "<input>"


@emulated(frozen=True, kw_only=True)
class TableAdd(Op):
    table: str
    keys: list = field(default_factory=list)


@emulated()
class Counted:
    total: int
    seen: list = field(default_factory=list)
    derived: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        self.derived = self.total * 2


def test_keyword_only_base_field_may_precede_positional_fields():
    c = Child("ipv4", 32, span="a.p4:1")
    assert (c.name, c.width, c.span) == ("ipv4", 32, "a.p4:1")
    assert Child("x").span == "nowhere"


def test_keyword_only_fields_refuse_positional_arguments():
    with pytest.raises(TypeError):
        Child("ipv4", 32, "a.p4:1")


def test_kw_only_class_requires_its_fields_by_name():
    t = TableAdd(table="fwd")
    assert (t.table, t.keys, t.source) == ("fwd", [], "<input>")
    with pytest.raises(TypeError):
        TableAdd()
    with pytest.raises(TypeError):
        TableAdd("fwd")


def test_default_factory_gives_each_instance_its_own_value():
    a, b = TableAdd(table="a"), TableAdd(table="b")
    a.keys.append(1)
    assert b.keys == []


def test_frozen_equality_hash_and_replace_work():
    c = Child("ipv4", span="s")
    assert c == Child("ipv4", span="s") and hash(c) == hash(Child("ipv4", span="s"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.name = "other"
    assert dataclasses.replace(c, width=16) == Child("ipv4", 16, span="s")


def test_post_init_and_init_false_fields():
    c = Counted(3)
    assert (c.total, c.seen, c.derived) == (3, [], 6)


def test_required_field_after_default_is_refused_like_dataclass():
    class Bad:
        __annotations__ = {"a": "int", "b": "int"}
        a = 1

    with pytest.raises(TypeError, match="non-default argument 'b'"):
        records._emulate(Bad)


@pytest.mark.skipif(not records.NATIVE, reason="compares with the native options of Python 3.10+")
def test_emulation_signature_matches_native_dataclass():
    import inspect

    @records.record(frozen=True, slots=True)
    class NativeBase:
        _: KW_ONLY
        span: str = "nowhere"

    @records.record(frozen=True, slots=True)
    class NativeChild(NativeBase):
        name: str
        width: int = 8

    native = inspect.signature(NativeChild.__init__)
    ours = inspect.signature(Child.__init__)
    assert [(p.name, p.kind) for p in native.parameters.values()] == \
        [(p.name, p.kind) for p in ours.parameters.values()]


_CACHED_CLASS = """
from dataplane.records import record
@record(frozen=True, slots=True)
class Point:
    x: int
    label: str = "a"
p = Point(1)
print(p == Point(1), p != Point(2), repr(Point(2, "b")), hash(p) == hash(Point(1)), Point.__init__.__qualname__)
"""


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="the method cache is CPython's")
def test_generated_methods_are_kept_between_runs_and_behave_the_same(tmp_path):
    env = {**os.environ, "DATAPLANE_CACHE_DIR": str(tmp_path)}
    env.pop("DATAPLANE_CACHE", None)
    run = lambda **extra: subprocess.run([sys.executable, "-c", _CACHED_CLASS], env={**env, **extra},  # noqa: E731
                                         capture_output=True, text=True, check=True).stdout
    first = run()
    (saved,) = tmp_path.glob("records-*.marshal")
    stamp = saved.stat().st_mtime_ns
    second = run()
    assert saved.stat().st_mtime_ns == stamp        # every method came from the file: nothing new to save
    without = run(DATAPLANE_CACHE="off")
    assert first == second == without == "True True Point(x=2, label='b') True Point.__init__\n"
