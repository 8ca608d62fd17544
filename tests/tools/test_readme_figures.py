"""tools/readme_figures.py: every figure it checks is still quoted where it looks, numbers are
written as the documents write them, a figure differing from its measurement is reported (a
simulated one exactly, a CPU time within the stated spread), and the cheap measurements agree
with README and docs/ as they stand."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def rf(load_tool):
    return load_tool("readme_figures")


def test_every_figure_is_found_where_it_is_quoted(rf):
    """A pattern that no longer matches its document (the sentence was reworded) would check
    nothing: each finds as many values as it has groups, and names a measurement that exists."""
    names = {m.name for m in rf.MEASUREMENTS}
    for fig in rf.figures():
        assert set(fig.measurements()) <= names, fig.what
        found = rf.quoted(fig)
        assert found is not None and all(found), f"{fig.doc}: {fig.what}: not found"


def test_numbers_are_written_as_the_documents_write_them(rf):
    t = sys.modules["readme_figures_table"]     # the table module readme_figures loads beside it
    assert t.fixed(0.8955 * 100, 1) == "89.5"             # as the commands print it (89.54999...)
    assert t.by_hand("1.125", 2) == "1.13" and t.by_hand("1.062", 2) == "1.06"   # a printed figure rounded again
    assert t.sig3(15_764.1) == "15,800" and t.sig3(34.96875) == "35.0" and t.sig3(344.97) == "345"
    # the pic table: 2 decimals of ms under 10 ms, 3 digits under 1 s, s with 2 decimals from 1 s
    assert [t.pic_time(ns) for ns in (968_750, 1_062_500, 1_125_000, 9_984_000, 10_000_000, 999_000_000,
                                      1_000_000_000, 17_241_968_750)] == \
        ["0.97 ms", "1.06 ms", "1.13 ms", "9.98 ms", "10.0 ms", "999 ms", "1.00 s", "17.24 s"]
    assert t.mb(8_308) == "0.01" and t.mb(9_994_999) == "9.99" and t.mb(10_000_000) == "10.0"
    assert t.span([0.848, 0.868, 0.851], t.pct) == "84.8-86.8" and t.span([0.5, 0.5], t.pct) == "50.0"


def _figure(rf, tmp_path, monkeypatch, text: str, **kw):
    doc = tmp_path / "doc.md"
    doc.write_text(text)
    monkeypatch.setattr(rf, "ROOT", tmp_path)
    return rf.Figure("doc.md", "a figure", r"took (\S+) ms", "m", **kw)


def test_a_simulated_figure_must_agree_exactly(rf, tmp_path, monkeypatch):
    fig = _figure(rf, tmp_path, monkeypatch, "it took\n5.152 ms", values=lambda r: [f"{r / 1e6:.3f}"])
    assert rf.compare(fig, {"m": rf.Result(5_152_164, 1.0, 1.0)}) == (["5.152"], ["5.152"], True)
    assert rf.compare(fig, {"m": rf.Result(4_552_000, 1.0, 1.0)})[2] is False
    gone = _figure(rf, tmp_path, monkeypatch, "reworded", values=lambda r: ["5.152"])
    assert rf.compare(gone, {"m": rf.Result(0, 1.0, 1.0)}) == (["5.152"], None, False)


def test_update_writes_the_measured_values_where_the_text_quotes_them(rf, tmp_path, monkeypatch):
    """--update replaces only the quoted values, also where the sentence breaks across lines."""
    fig = _figure(rf, tmp_path, monkeypatch, "Before.\nIt took\n4.552 ms, then more.\n",
                  values=lambda r: [f"{r / 1e6:.3f}"])
    assert rf.update(fig, ["5.152"]) is True
    assert (tmp_path / "doc.md").read_text() == "Before.\nIt took\n5.152 ms, then more.\n"
    assert rf.compare(fig, {"m": rf.Result(5_152_164, 1.0, 1.0)})[2] is True


@pytest.mark.parametrize("cpu_s, agrees", [(4.0, True), (3.99, False), (16.0, True), (16.01, False), (8.0, True)])
def test_a_cpu_time_must_be_within_the_spread_either_way(rf, tmp_path, monkeypatch, cpu_s, agrees):
    """"about 8 s" holds from 8 / TIME_SPREAD to 8 x TIME_SPREAD seconds of CPU, and not beyond."""
    assert rf.TIME_SPREAD == 2
    fig = _figure(rf, tmp_path, monkeypatch, "it took 8 ms", cpu=True)
    assert rf.compare(fig, {"m": rf.Result(None, 100.0, cpu_s)})[2] is agrees


@pytest.mark.no_pypy     # exact simulated figures, the same under PyPy, where it takes 20 s against 6
def test_the_pfc_deadlock_and_small_allreduce_figures_agree_with_the_documents(rf, capsys):
    """The cheap measurements (a few seconds of CPU), run for real: docs/fabric/queues.md's and
    docs/pfc-deadlock.md's storm times (264 and 263.9 us once, 267 and 267.1 now) and
    docs/allreduce.md's 4-worker speedup."""
    code = rf.main(["--check", "--only", "pfc-deadlock,pfc-deadlock-forward,allreduce-4"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert sum(line.startswith("ok ") for line in out.splitlines()) >= 6 and "every figure checked agrees" in out
