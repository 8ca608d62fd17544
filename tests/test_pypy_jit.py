"""PyPy's JIT tuned by the first run of a process (dataplane.pypy_jit), with a stand-in
``pypyjit`` module recording what it is asked, so that the rules hold on CPython too."""
import sys
import types

import pytest

from dataplane import pypy_jit
from dataplane.net.core.sim import Simulator

# PyPy 3.9's defaults are threshold 1039, function_threshold 1619, trace_eagerness 200 and every
# optimisation (intbounds:rewrite:virtualize:string:pure:earlyforce:heap:unroll).
TUNED = ("threshold=200,function_threshold=300,trace_eagerness=50,"
         "enable_opts=intbounds:rewrite:virtualize:string:pure:earlyforce:heap")


@pytest.fixture
def fake_jit(monkeypatch):
    """A stand-in ``pypyjit`` whose ``params`` and ``marked`` (code objects) say what it was asked;
    the process's tuning and the list of functions to mark as this test leaves them."""
    fake = types.ModuleType("pypyjit")
    fake.params = []                                       # type: ignore[attr-defined]
    fake.marked = []                                       # type: ignore[attr-defined]
    fake.set_param = fake.params.append                    # type: ignore[attr-defined]

    def dont_trace_here(next_instr: int, is_being_profiled: bool, code: types.CodeType) -> None:
        assert next_instr == 0 and is_being_profiled is False    # the function's entry
        fake.marked.append(code)                           # type: ignore[attr-defined]

    fake.dont_trace_here = dont_trace_here                 # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "pypyjit", fake)
    monkeypatch.delenv("DATAPLANE_PYPY_JIT", raising=False)
    monkeypatch.setattr(pypy_jit, "tuned", False)
    monkeypatch.setattr(pypy_jit, "_pypyjit", None)
    monkeypatch.setattr(pypy_jit, "_not_inlined", list(pypy_jit._not_inlined))
    return fake


def test_the_first_run_tunes_pypys_jit_once_unless_told_not_to(fake_jit, monkeypatch, capsys):
    """The first run of a process sets the JIT's thresholds lower than PyPy's and its
    optimisations without ``unroll``, once; ``DATAPLANE_PYPY_JIT`` gives others, ``off`` or an
    empty value leaves PyPy's own, and parameters PyPy refuses are said so, the run going on."""
    Simulator().run()
    Simulator().run()
    assert fake_jit.params == [TUNED]
    for value, expected in (("threshold=50", ["threshold=50"]), ("off", []), ("", [])):
        fake_jit.params.clear()
        monkeypatch.setenv("DATAPLANE_PYPY_JIT", value)
        monkeypatch.setattr(pypy_jit, "tuned", False)
        Simulator().run()
        assert fake_jit.params == expected, value

    def refuse(params: str) -> None:      # as pypyjit.set_param does with a name it does not know
        raise ValueError("error in JIT parameters string")

    fake_jit.set_param = refuse
    monkeypatch.setenv("DATAPLANE_PYPY_JIT", "thresold=50")
    monkeypatch.setattr(pypy_jit, "tuned", False)
    seen: list[int] = []
    sim = Simulator()
    sim.schedule(5, seen.append, 1)
    sim.run()
    assert seen == [1] and "refused the parameters 'thresold=50'" in capsys.readouterr().err


def test_the_first_run_marks_the_wire_and_the_ports_queue_out_of_line(fake_jit):
    """``Port._wire`` and ``Port.enqueue``, which nearly every event of a hop reaches, are called
    from PyPy's traces instead of copied into them, once the JIT is tuned, each once."""
    from dataplane.net.devices.link import Port

    assert fake_jit.marked == []          # importing marks nothing: the first run does
    Simulator().run()
    assert {Port._wire.__code__, Port.enqueue.__code__} <= set(fake_jit.marked)
    assert fake_jit.marked == pypy_jit._not_inlined      # (and whatever else was named so far)
    marked = len(fake_jit.marked)
    Simulator().run()
    assert len(fake_jit.marked) == marked


@pytest.mark.parametrize("value", ["off", ""])
def test_pypys_own_jit_leaves_every_call_inlined(fake_jit, monkeypatch, value):
    """``DATAPLANE_PYPY_JIT=off`` (or empty) is PyPy as it comes: no parameters, no call marked."""
    monkeypatch.setenv("DATAPLANE_PYPY_JIT", value)
    Simulator().run()
    assert fake_jit.params == [] and fake_jit.marked == []


def test_parameters_pypy_refuses_leave_every_call_inlined(fake_jit, monkeypatch):
    def refuse(params: str) -> None:
        raise ValueError("error in JIT parameters string")

    fake_jit.set_param = refuse
    monkeypatch.setenv("DATAPLANE_PYPY_JIT", "thresold=50")
    Simulator().run()
    assert fake_jit.marked == []


def test_a_function_named_after_the_tuning_is_marked_at_once_and_compiled_ones_are_skipped(fake_jit):
    def late() -> None:
        pass

    Simulator().run()
    before = list(fake_jit.marked)
    pypy_jit.not_inlined(late, len)        # a built-in, as a mypyc-compiled method, has no code object
    pypy_jit.not_inlined(late)             # named again: marked once
    assert fake_jit.marked == before + [late.__code__]


def test_without_pypyjit_as_on_cpython_tuning_does_nothing(monkeypatch):
    monkeypatch.setitem(sys.modules, "pypyjit", None)      # import pypyjit raises ImportError
    monkeypatch.delenv("DATAPLANE_PYPY_JIT", raising=False)
    monkeypatch.setattr(pypy_jit, "tuned", False)
    monkeypatch.setattr(pypy_jit, "_pypyjit", None)
    assert pypy_jit.tune() is False and pypy_jit._pypyjit is None
    assert pypy_jit.tune() is False          # once per process
