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


def test_plot_has_a_legend_entry_per_line(tmp_path, monkeypatch):
    import matplotlib.pyplot as plt

    figures = []
    monkeypatch.setattr(plt, "close", lambda fig=None: figures.append(fig))
    assert plot_throughput(_series(20), tmp_path / "t.png") == tmp_path / "t.png"
    # older matplotlib (PyPy's 3.9) also calls close("all") on its own: keep the figure
    [fig] = [f for f in figures if hasattr(f, "axes")]
    ax = fig.axes[0]
    assert len(ax.get_lines()) == 12
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [line.get_label() for line in ax.get_lines()]
