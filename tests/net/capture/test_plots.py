"""The run's plots: every line drawn is in the legend."""
from dataplane.net.capture.plots import plot_throughput, throughput_lines


def _series(n: int) -> dict:
    return {f"h{i}->h0": [(0, i / 10), (100_000, i / 10)] for i in range(1, n + 1)}


def test_few_flows_each_get_a_line_in_natural_order():
    lines = throughput_lines(_series(11), max_lines=12)
    assert [name for name, _ in lines] == [f"h{i}->h0" for i in range(1, 12)]


def test_many_flows_the_rest_as_one_labelled_mean():
    lines = throughput_lines(_series(15), max_lines=12)
    assert len(lines) == 12
    assert [name for name, _ in lines[:-1]] == [f"h{i}->h0" for i in range(5, 16)]     # the 11 busiest
    name, pts = lines[-1]
    assert name == "mean of the other 4 flows"
    assert [t for t, _ in pts] == [0, 100_000] and all(abs(g - 0.25) < 1e-9 for _, g in pts)


def test_plot_has_a_legend_entry_per_line(tmp_path, monkeypatch, plots_drawn):
    import matplotlib.pyplot as plt

    figures = []
    monkeypatch.setattr(plt, "close", lambda fig=None: figures.append(fig))
    assert plot_throughput(_series(20), tmp_path / "t.png") == tmp_path / "t.png"
    # older matplotlib (PyPy's 3.9) also calls close("all") on its own: keep the figure
    [fig] = [f for f in figures if hasattr(f, "axes")]
    ax = fig.axes[0]
    assert len(ax.get_lines()) == 12
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [line.get_label() for line in ax.get_lines()]


def test_dataplane_plots_0_draws_no_png_and_changes_nothing_else(tmp_path, monkeypatch):
    """``DATAPLANE_PLOTS=0``: the same files but the PNGs, byte for byte, and only the files
    written are named (``0`` exactly; any other value draws)."""
    from click.testing import CliRunner

    from dataplane.cli import main

    args = ["scenario", "incast", "--senders", "2", "--transfer", "64KB", "--mode", "droptail", "--out"]
    said = {}
    for value in ("0", "1", ""):
        monkeypatch.setenv("DATAPLANE_PLOTS", value)
        result = CliRunner().invoke(main, args + [str(tmp_path / (value or "unset"))])
        assert result.exit_code == 0, result.output
        said[value] = result.output.splitlines()[-1]
    files = {v: {p.name: p.read_bytes() for p in (tmp_path / v).iterdir()} for v in ("0", "1", "unset")}
    assert sorted(files["1"]) == sorted(files["unset"]) == ["flow_rates.png", "queue_depth.png", "report.json",
                                                             "results.json"]
    assert sorted(files["0"]) == ["report.json", "results.json"]
    assert all(files["0"][name] == files["1"][name] for name in files["0"])
    assert said["0"] == f"wrote {tmp_path / '0' / 'results.json'}"
    assert said["1"].count(".png") == 2


def test_dataplane_run_names_its_plots_only_when_it_drew_them(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from dataplane.cli import main

    for value in ("0", "1"):
        monkeypatch.setenv("DATAPLANE_PLOTS", value)
        out = tmp_path / value
        result = CliRunner().invoke(main, ["run", "--traffic", "incast", "--duration", "100us", "--out", str(out)])
        assert result.exit_code == 0, result.output
        drew = sorted(p.name for p in out.glob("*.png"))
        said = result.output.splitlines()[-1]
        assert (drew == []) == (value == "0") and (value == "0" or "queues.png" in drew), drew
        assert said == (f"pcaps, metrics and report.json written to {out}" if value == "0"
                        else f"pcaps, metrics, plots and report.json written to {out}")
