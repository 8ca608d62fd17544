"""The P4Runtime device config of this emulator (``p4_device_config``): the preprocessed program.

It is the P4 program with every ``#include`` expanded and macros applied, after one header::

    // dataplane device config: format=p4-preprocessed version=1 arch=v1model source=router.p4

Why source and not a compiled artefact: the engine generates Python from the IR when a
switch loads, the IR has no loader (its JSON is a summary, not a round-trip format), and
compiling a program takes well under a second; so the source is the smallest thing that
fully defines the pipeline, needs no include path on the server, and stays valid across
versions of this project. ``dataplane compile PROG --device-config FILE`` writes it; the
P4Runtime server compiles it on SetForwardingPipelineConfig. No gRPC here: the compile
command runs under PyPy too.
"""
from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

HEADER = "// dataplane device config: "
FORMAT = "p4-preprocessed"


class DeviceConfigError(ValueError):
    """Bytes that are not a device config of this emulator."""


def make_device_config(path: str | Path, *, include_dirs: Sequence[Path] = (),
                       defines: Mapping[str, str] | None = None, arch: str | None = None) -> bytes:
    """The device config of the program at ``path``; ``arch`` if known, else found by compiling
    (which raises CompileError for a program that does not compile)."""
    from dataplane.lang.preprocess.directives import preprocess

    pre = preprocess(path, include_dirs=include_dirs, defines=defines)
    if arch is None:
        from dataplane.lang.frontend import compile_source

        arch = getattr(compile_source(pre.text, str(path)).program, "architecture", "v1model")
    head = f"{HEADER}format={FORMAT} version=1 arch={arch} source={Path(path).name}\n"
    return (head + pre.text).encode()


def parse_device_config(data: bytes) -> tuple[dict[str, str], str]:
    """(header fields, program text) of a device config; DeviceConfigError if it is not one."""
    hint = "write one with 'dataplane compile PROG --device-config FILE'"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise DeviceConfigError(f"the device config is not this emulator's (expected P4 source; {hint})") from None
    first, _, body = text.partition("\n")
    if not first.startswith(HEADER):
        raise DeviceConfigError(f"the device config has no 'dataplane device config' header; {hint}")
    fields = dict(item.partition("=")[::2] for item in first[len(HEADER):].split())
    if fields.get("format") != FORMAT or fields.get("version") != "1":
        raise DeviceConfigError(f"unsupported device config format {fields.get('format')!r} "
                                f"version {fields.get('version')!r}")
    return fields, body
