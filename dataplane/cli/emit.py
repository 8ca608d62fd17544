"""``dataplane compile --emit-python FILE``: the generated pipeline module, as the engine runs it.

The engine generates one Python module per program, holding every parser, control, action
and table of the package (``build(_rt)`` returns them as closures over one switch's state),
so that is what is written: the module the program's architecture would compile, with the
same options (the eBPF targets end a rejected parse as the packet's fate), its lines
commented with their P4 positions. The file imports (it needs only ``dataplane``); a device
gives ``build`` its tables and externs.
"""
from __future__ import annotations

import importlib
from pathlib import Path

from dataplane.ir import program as P


def write_python(program: P.Program, path: Path) -> None:
    """Write the generated pipeline module of ``program`` to ``path``."""
    from dataplane.control.switch import DEVICES
    from dataplane.engine.backend import generate

    reject_is_error = False
    arch = getattr(program, "architecture", "v1model")
    if arch in DEVICES:
        module, cls = DEVICES[arch]
        reject_is_error = getattr(importlib.import_module(module), cls).parser_reject_is_error
    path.write_text(generate(program, reject_is_error=reject_is_error))
