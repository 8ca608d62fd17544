"""How every ``dataplane`` command reports a failure, and its exit status: 1 for an error in the
user's program, files or options found while running (the message, no traceback); 2 for a
usage error (click: unknown option, bad value); 3 for an internal error, a bug in dataplane
(reported as a bug: what failed, the Python frame it failed in, how to report it).
"""
from __future__ import annotations

import os
import platform
import sys
import traceback
from contextlib import contextmanager
from typing import Iterator

import click

from dataplane.errors import CompileError, DataplaneError, InternalError

EXIT_USER, EXIT_USAGE, EXIT_INTERNAL = 1, 2, 3


@contextmanager
def reported_errors() -> Iterator[None]:
    """Turn compile errors (with their carets) and other project errors into messages and exit 1."""
    try:
        yield
    except InternalError as err:
        report_internal(err)
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
    """``error: MESSAGE`` (``error [CODE]: MESSAGE`` for a refused control-plane operation, with
    BMv2's code), or the message as it is when it already says ``FILE:LINE: error...:`` (config-file
    errors do), so no line reads ``error: file: error: ...``."""
    from dataplane.control.config_errors import ControlPlaneError

    text = str(err)
    first = text.split("\n", 1)[0]
    if first.startswith("error") and ":" in first or ": error:" in first or ": error [" in first:
        return text
    if isinstance(err, ControlPlaneError):
        return f"error [{err.code}]: {text}"
    return f"error: {text}"


def report_internal(err: BaseException) -> None:
    """Print ``err`` as a bug in dataplane and exit with status 3 (``EXIT_INTERNAL``).

    An ``InternalError`` or any exception no layer turned into a user-facing error is a bug:
    say so, name the innermost frame of dataplane's own code, and say how to report it. The
    whole traceback is printed when the environment sets ``DATAPLANE_TRACEBACK=1``."""
    from dataplane import __version__
    from dataplane.resources import package_path

    frames = traceback.extract_tb(err.__traceback__)
    ours = [(where, f) for f in frames if (where := package_path(f.filename))] \
        or [(f.filename, f) for f in frames]
    what = str(err) if isinstance(err, InternalError) else f"{type(err).__name__}: {err}"
    lines = [f"internal error [internal]: {what}"]
    if ours:
        where, f = ours[-1]
        lines.append(f"  in {where}:{f.lineno}, {f.name}()")
    from dataplane.engine.source_map import p4_location

    span = p4_location(err.__traceback__)   # it failed inside a pipeline: the P4 line it ran
    if span is not None:
        lines.append(f"  while running {span} of the P4 program")
    lines.append("This is a bug in dataplane, not in your program or files. Please report it with the command "
                 "you ran, the files it read and this message "
                 f"(dataplane {__version__}, {platform.python_implementation()} {platform.python_version()}); "
                 "DATAPLANE_TRACEBACK=1 prints the full Python traceback.")
    if os.environ.get("DATAPLANE_TRACEBACK") == "1":
        lines.append("".join(traceback.format_exception(type(err), err, err.__traceback__)).rstrip())
    click.echo("\n".join(lines), err=True)
    sys.exit(EXIT_INTERNAL)
