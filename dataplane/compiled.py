"""The simulator's hot modules, which an install may compile to C with mypyc (CPython only).

Every simulated packet-hop runs the same dozen Python functions: the event loop, a port's
queue and wire, the switch node, PFC's accounting, the decision cache and the RDMA sender
(docs/speed/simulator.md). ``DATAPLANE_COMPILE=1 pip install .`` builds these modules as C
extensions with mypyc (setup.py reads ``MODULES`` from this file); the Python sources stay the
definition, and the compiled modules compute the same values from the same code, so every output
is the same to the byte (tests/test_compiled.py runs the pinned outputs against a compiled
build). Nothing else changes: PyPy, and an install without the variable, run the sources.

What a compiled module does not allow: replacing a method on one of its classes (or on an
instance), or a subclass in plain Python that overrides one; compiled code calls its own
methods directly. ``compiled_modules()`` says which are compiled in this process.
"""
from __future__ import annotations

import importlib.util
from importlib.machinery import EXTENSION_SUFFIXES

__all__ = ["MODULES", "compiled_modules"]

#: the modules ``DATAPLANE_COMPILE=1`` compiles, in the order of a packet-hop
MODULES = (
    "dataplane.net.core.sim",
    "dataplane.net.devices.link",
    "dataplane.net.devices.switch_node",
    "dataplane.net.devices.pfc",
    "dataplane.engine.decision.cache",
    "dataplane.engine.decision.frame",
    "dataplane.arch.v1model_decisions",
    "dataplane.arch.work",
    "dataplane.net.hosts.host",
    "dataplane.net.hosts.timer",
    "dataplane.net.apps.dcqcn_rp",
)


def compiled_modules() -> list[str]:
    """The names in ``MODULES`` that this interpreter loads from a C extension."""
    found = []
    for name in MODULES:
        spec = importlib.util.find_spec(name)
        origin = spec.origin if spec is not None else None
        if origin and origin.endswith(tuple(EXTENSION_SUFFIXES)):
            found.append(name)
    return found
