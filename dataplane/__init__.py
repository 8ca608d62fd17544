"""dataplane: a programmable data-plane emulator for P4_16 programs.

The public API is importable from here; each name loads its module on first use, so
``import dataplane`` (and the ``dataplane`` command's start-up) stays fast:

- compiling: ``compile_file``, ``compile_source``, ``CompileResult``, ``CompileError``,
  ``CompileLimits`` (what one compile may use), ``to_p4`` (a parse tree printed back as P4),
  ``builtin_program``;
- one switch: ``Switch`` (``Switch.from_file(path or built-in name)``; tables, registers,
  counters, packets in and out);
- networks: ``load_topology`` (YAML or the P4 tutorials' ``topology.json``),
  ``builtin_topology``, ``leaf_spine``/``fat_tree``/``dragonfly`` (generated fabrics),
  ``Network`` (``Network.from_spec(spec)``, ``run(until_ns)``) and ``Traffic`` (apps on its hosts);
- the built-in scenarios: ``run_pic``, ``run_incast`` (with ``IncastConfig``), ``run_allreduce``,
  ``run_vxlan`` (with ``VxlanConfig``);
- tests: ``run_stf`` / ``run_stf_file`` (p4c's STF), ``load_stf``;
- errors: ``DataplaneError`` (every error a user can cause), ``CompileError``.

The packages, one job each (``dataplane/<name>/__init__.py`` says more): ``ir`` (the typed
program representation), ``lang`` (the front end), ``engine`` (IR to generated Python),
``arch`` (the architectures), ``control`` (the control-plane API and its file formats),
``net`` (the simulated fabric), ``replay`` (captures through one switch), ``testing`` (STF,
pytest), ``scenarios``, ``report``, ``pcap``.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# name -> the module that defines it
_EXPORTS = {
    "compile_file": "dataplane.lang.frontend",
    "compile_source": "dataplane.lang.frontend",
    "CompileResult": "dataplane.lang.frontend",
    "CompileLimits": "dataplane.lang.limits",
    "to_p4": "dataplane.ir.printer",
    "builtin_program": "dataplane.resources",
    "builtin_topology": "dataplane.resources",
    "Switch": "dataplane.control.switch",
    "load_topology": "dataplane.net.topology.load",
    "leaf_spine": "dataplane.net.topology.generators",
    "fat_tree": "dataplane.net.topology.generators",
    "dragonfly": "dataplane.net.topology.generators",
    "Network": "dataplane.net.fabric.network",
    "Traffic": "dataplane.net.apps.traffic",
    "run_pic": "dataplane.scenarios.pic",
    "run_incast": "dataplane.scenarios.incast",
    "IncastConfig": "dataplane.scenarios.incast",
    "run_allreduce": "dataplane.scenarios.allreduce",
    "run_vxlan": "dataplane.scenarios.vxlan",
    "VxlanConfig": "dataplane.scenarios.vxlan",
    "run_stf": "dataplane.testing.stf_runner",
    "run_stf_file": "dataplane.testing.stf_runner",
    "load_stf": "dataplane.testing.stf",
    "DataplaneError": "dataplane.errors",
    "CompileError": "dataplane.errors",
}

__all__ = ["__version__", *_EXPORTS]

if TYPE_CHECKING:   # what a type checker and an IDE see; at run time __getattr__ imports on demand
    from dataplane.control.switch import Switch
    from dataplane.errors import CompileError, DataplaneError
    from dataplane.ir.printer import to_p4
    from dataplane.lang.frontend import CompileResult, compile_file, compile_source
    from dataplane.lang.limits import CompileLimits
    from dataplane.net.apps.traffic import Traffic
    from dataplane.net.fabric.network import Network
    from dataplane.net.topology.generators import dragonfly, fat_tree, leaf_spine
    from dataplane.net.topology.load import load_topology
    from dataplane.resources import builtin_program, builtin_topology
    from dataplane.scenarios.allreduce import run_allreduce
    from dataplane.scenarios.incast import IncastConfig, run_incast
    from dataplane.scenarios.pic import run_pic
    from dataplane.scenarios.vxlan import VxlanConfig, run_vxlan
    from dataplane.testing.stf import load_stf
    from dataplane.testing.stf_runner import run_stf, run_stf_file


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'dataplane' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value      # the next access is a plain module attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
