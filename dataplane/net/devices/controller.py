"""Python control planes attached to switches, paying simulated time for every table write.

A controller is a class with any of the hooks ``on_start()``, ``on_link_down(port)``,
``on_link_up(port)``, ``on_digest(receiver, values)``; it gets a ``ControllerHandle`` as
``self.switch`` (and ``self.sim``). Reads through the handle are immediate. Writes
(table_add, table_modify, table_delete, table_set_default, register_write, ...) are
queued one after another, each taking the switch's write latency, and take effect when
done, so convergence costs time as on real gear.
"""
from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path
from typing import Any, Callable

from dataplane.errors import DataplaneError
from dataplane.net.core.sim import Simulator

_WRITES = {"table_add", "table_add_group", "table_modify", "table_delete", "table_clear", "table_set_default",
           "register_write", "mc_group_create", "mc_node_create", "mc_node_associate", "clone_session_add",
           "meter_set_rates", "counter_reset"}


class ControllerError(DataplaneError):
    """A controller could not be loaded or one of its writes failed."""


class Controller:
    """Optional base class for controllers; every hook is a no-op."""

    switch: "ControllerHandle"
    sim: Simulator

    def on_start(self) -> None: ...

    def on_link_down(self, port: int) -> None: ...

    def on_link_up(self, port: int) -> None: ...

    def on_digest(self, receiver: int, values: tuple) -> None: ...


class ControllerHandle:
    """The switch as a controller sees it: immediate reads, writes that take simulated time."""

    def __init__(self, sim: Simulator, node: Any, write_latency_ns: int):
        self.sim = sim
        self.node = node
        self.api = node.api
        self.write_latency_ns = write_latency_ns
        self.busy_until = 0
        self.writes_done = 0
        self.writes_issued = 0
        self.last_write_ns = 0
        self.controller: Any = None
        self.errors: list[str] = []

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def now(self) -> int:
        return self.sim.now

    def timer(self, delay_ns: int, fn: Callable, *args) -> None:
        self.sim.schedule(delay_ns, fn, *args)

    def __getattr__(self, attr: str):
        target = getattr(self.api, attr)
        if attr not in _WRITES:
            return target

        def deferred(*args, **kwargs):
            start = max(self.sim.now, self.busy_until)
            self.busy_until = start + self.write_latency_ns
            self.writes_issued += 1
            self.sim.at(self.busy_until, self._apply, target, args, kwargs)
        return deferred

    def _apply(self, fn: Callable, args: tuple, kwargs: dict) -> None:
        try:
            fn(*args, **kwargs)
        except DataplaneError as err:
            self.errors.append(f"{self.node.name}: {err}")
        self.writes_done += 1
        self.last_write_ns = self.sim.now

    def deliver_digests(self, digests: list) -> None:
        hook = getattr(self.controller, "on_digest", None)
        if hook is not None:
            for receiver, values in digests:
                self.sim.schedule(0, hook, receiver, values)

    def notify(self, event: str, *args) -> None:
        hook = getattr(self.controller, event, None)
        if hook is not None:
            hook(*args)


def load_controller(ref: str, base_dir: Path | None = None) -> type:
    """The controller class named ``"path/file.py:Class"`` or ``"package.module:Class"``."""
    module_ref, _, cls_name = ref.partition(":")
    if not cls_name:
        raise ControllerError(f"controller {ref!r} must be written 'file.py:ClassName' or 'module:ClassName'")
    try:
        if module_ref.endswith(".py"):
            path = Path(module_ref)
            if not path.is_absolute() and base_dir is not None:
                path = base_dir / path
            spec = importlib.util.spec_from_file_location(f"dataplane_controller_{path.stem}", path)
            if spec is None or not path.is_file():
                raise ControllerError(f"controller file {path} not found")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        else:
            module = importlib.import_module(module_ref)
    except ControllerError:
        raise
    except Exception as err:
        raise ControllerError(f"cannot load controller {ref!r}: {err}") from None
    cls = getattr(module, cls_name, None)
    if cls is None:
        raise ControllerError(f"controller module {module_ref!r} has no class {cls_name!r}")
    return cls


def attach(sim: Simulator, node: Any, controller: Any, write_latency_ns: int) -> ControllerHandle:
    """Attach a controller instance (or class) to a switch node."""
    handle = ControllerHandle(sim, node, write_latency_ns)
    if isinstance(controller, type):
        controller = controller()
    controller.switch = handle
    controller.sim = sim
    handle.controller = controller
    node.controller = handle
    return handle
