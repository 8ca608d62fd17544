"""How every ``dataplane`` command reports a failure: the message, exit status 1, no traceback."""
from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Iterator

import click

from dataplane.errors import CompileError, DataplaneError


@contextmanager
def reported_errors() -> Iterator[None]:
    """Turn compile errors (with their carets) and other project errors into messages and exit 1."""
    try:
        yield
    except CompileError as err:
        click.echo(err.render(), err=True)
        sys.exit(1)
    except DataplaneError as err:
        click.echo(error_message(err), err=True)
        sys.exit(1)
    except OSError as err:   # an output that could not be written after all (disk full, removed folder)
        where = f"{err.filename}: " if err.filename else ""
        click.echo(f"{where}error: {err.strerror or err}", err=True)
        sys.exit(1)


def error_message(err: Exception) -> str:
    """``error: MESSAGE``, or the message as it is when it already says ``FILE:LINE: error:``
    (config-file errors do), so no line reads ``error: file: error: ...``."""
    text = str(err)
    first = text.split("\n", 1)[0]
    if first.startswith("error:") or ": error:" in first:
        return text
    return f"error: {text}"
