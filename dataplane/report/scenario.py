"""Reporting a built-in scenario: record every network its command builds (``record.recording``),
collect each when the next one is built (it has finished by then) and the last at the end, and
take the result rows from the files the scenario writes with ``--out``.

Without ``--out`` the scenario writes them into a temporary folder, and its lines naming that
folder are left out of what it prints.
"""
from __future__ import annotations

import contextlib
import io
import json
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

from dataplane.net.parallel.session import on_root
from dataplane.report import collect
from dataplane.report.record import recording

RESULT_FILES = ("results.json", "pic.json")
#: result-row keys that tell a scenario's runs apart, in the order they are named by
NAME_KEYS = ("mode", "senders", "workers", "tenants", "prefixes", "offload", "fault", "workload", "event", "lb", "receiver",
             "size")


def run_reported(name: str, callback: Callable[..., Any], kwargs: dict[str, Any],
                 report: Path | None, write_page: Callable[[dict, Path], None]) -> Any:
    """Run a scenario's command ``callback(**kwargs)`` and write its report data (into ``--out``)
    and page (``report``); without either it just runs."""
    out = kwargs.get("out")
    if out is None and report is None:
        return callback(**kwargs)
    root = on_root()
    runs: list[dict[str, Any]] = []
    with contextlib.ExitStack() as stack:
        if out is None:
            tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="dataplane-report-"))
            kwargs = {**kwargs, "out": Path(tmp)}
            stream = _Without(sys.stdout, tmp)
            stack.enter_context(contextlib.redirect_stdout(stream))
            stack.callback(stream.flush)
        recorders: list = []

        def finished() -> None:
            while recorders:
                rec = recorders.pop(0)
                if root:        # several ranks: rank 0's recorders have every rank's samples
                    runs.append(collect.collect_run(rec.net, rec, f"{rec.net.spec.name} {len(runs) + 1}"))

        with recording(lambda net: finished()) as recorders:  # noqa: F811 (bound above for finished())
            value = callback(**kwargs)
            finished()
        if not root:
            return value
        results = _results(Path(kwargs["out"]))
        figures = _figures(Path(kwargs["out"]))
    _name_runs(runs, results)
    options = {k: (str(v) if isinstance(v, Path) else v) for k, v in kwargs.items() if k not in ("out", "as_json")}
    data = collect.report_data("scenario", f"dataplane scenario {name}", runs,
                               collect.provenance(**options), results, figures)
    if out is not None:
        collect.write_data(out, data)
    if report is not None:
        write_page(data, report)
    return value


def _results(out: Path) -> list[dict[str, Any]] | None:
    for file in RESULT_FILES:
        path = out / file
        if path.is_file():
            try:
                data = json.loads(path.read_text())
            except (OSError, ValueError):
                return None
            # {"results": [...]}, or the rows alone (pfc-deadlock's results.json)
            rows = data.get("results") if isinstance(data, dict) else data
            return rows if isinstance(rows, list) else None
    return None


def _figures(out: Path) -> list[dict[str, Any]] | None:
    """The scenario's own figures (``results.json``'s ``figures``: line charts and timelines the
    page draws under the results), or None."""
    path = out / RESULT_FILES[0]
    try:
        data = json.loads(path.read_text()) if path.is_file() else None
    except (OSError, ValueError):
        return None
    figures = data.get("figures") if isinstance(data, dict) else None
    return figures if isinstance(figures, list) else None


def _name_runs(runs: list[dict[str, Any]], results: list[dict[str, Any]] | None) -> None:
    """Name each run after its result row when there is one row per run (``mode ecn, senders 4``)."""
    if not results or len(results) != len(runs):
        return
    for run, row in zip(runs, results):
        label = ", ".join(f"{k} {row[k]}" for k in NAME_KEYS if k in row and row[k] is not None)
        if label:
            run["name"] = f"{run['topology']['name']}: {label}"


class _Without(io.TextIOBase):
    """A text stream that passes lines through to ``real`` except those containing ``drop``."""

    def __init__(self, real: Any, drop: str) -> None:
        self.real, self.drop, self.pending = real, drop, ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.pending += text
        while "\n" in self.pending:
            line, self.pending = self.pending.split("\n", 1)
            if self.drop not in line:
                self.real.write(line + "\n")
        return len(text)

    def flush(self) -> None:
        if self.pending and self.drop not in self.pending:
            self.real.write(self.pending)
        self.pending = ""
        self.real.flush()
