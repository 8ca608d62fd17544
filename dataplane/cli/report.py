"""``dataplane report OUT_DIR``, and the ``--report FILE.html`` that ``run`` and every scenario take:
the HTML run report (``dataplane.report``)."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from dataplane.cli.options import OutputFile


def write_page(data: dict[str, Any], path: Path) -> None:
    """Render the report data to ``path``; a file that cannot be written is a one-line error."""
    from dataplane.report.page import render

    try:
        Path(path).write_text(render(data), encoding="utf-8")
    except OSError as err:
        click.echo(f"{path}: error: cannot write the report: {err.strerror or err}", err=True)
        sys.exit(1)


@click.command("report")
@click.argument("out_dir", type=click.Path(path_type=Path))
@click.option("-o", "--output", type=OutputFile(), default=None,
              help="The HTML file to write (default: OUT_DIR/report.html).")
def report_command(out_dir: Path, output: Path | None) -> None:
    """Write the HTML report of a finished run or scenario from its --out folder OUT_DIR.

    The page is the one `run --report` or `scenario NAME --report` writes: topology, time
    series, drops, tables, hosts and flows, failures and provenance, in one file that opens
    offline. OUT_DIR must hold the report.json that --out writes when the run finishes.
    """
    from dataplane.report.collect import ReportError, read_data

    try:
        data = read_data(out_dir)
    except ReportError as err:
        click.echo(f"error: {err}", err=True)
        sys.exit(1)
    path = output if output is not None else out_dir / "report.html"
    write_page(data, path)
    click.echo(f"wrote {path}")
