"""One switch run in real time for clients outside the process (P4Runtime controllers, PTF).

A ``LiveSwitch`` is what the P4Runtime server and the PTF socket share: the loaded ``Switch``
(replaced whole when a controller sets a new pipeline), one lock around every call into it,
packets injected from any thread, and every packet the switch sends handed to the listeners
(the PTF socket for front-panel ports, the P4Runtime stream for the CPU port). The device
clock (``now_us``) follows the wall clock from the moment the switch starts, so meters and
timestamps behave as on a running BMv2.

The same three calls (``inject``, ``listen``, ``lock``) are what a switch of a simulated
topology offers when ``dataplane run --serve`` paces it to the wall clock.
"""
from __future__ import annotations

import threading
import time
from typing import Callable

from dataplane.control.config_errors import ControlPlaneError
from dataplane.control.switch import Switch

Listener = Callable[[int, bytes], None]


class Listeners:
    """The callbacks that get a switch's packets, added and removed under its owner's lock."""

    def __init__(self, lock: threading.RLock):
        self._lock = lock
        self._items: list[Listener] = []

    def add(self, listener: Listener) -> Callable[[], None]:
        """Register ``listener``; returns the call that removes it again."""
        with self._lock:
            self._items.append(listener)

        def stop() -> None:
            with self._lock:
                if listener in self._items:
                    self._items.remove(listener)
        return stop

    def snapshot(self) -> list[Listener]:
        """The listeners now, to call without holding the lock."""
        with self._lock:
            return list(self._items)


class LiveSwitch:
    """A switch that outside clients drive concurrently; ``switch`` is None until a pipeline is set."""

    def __init__(self, switch: Switch | None = None, *, name: str = "s1", device_id: int = 1,
                 cpu_port: int | None = None):
        self.name = name
        self.device_id = device_id
        self.cpu_port = cpu_port
        self.lock = threading.RLock()
        self.switch = switch
        self._listeners = Listeners(self.lock)
        self._start = time.monotonic()
        self.drops = 0

    def now_us(self) -> int:
        """The device clock: microseconds since the switch started (what ``inject`` gives the pipeline)."""
        return int((time.monotonic() - self._start) * 1e6)

    def replace(self, switch: Switch | None) -> None:
        """Put a newly loaded switch in place (SetForwardingPipelineConfig); its state starts empty."""
        with self.lock:
            self.switch = switch

    def listen(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(port, data)`` for every packet the switch sends; returns the way to stop."""
        return self._listeners.add(listener)

    def inject(self, port: int, data: bytes) -> None:
        """Run one packet arriving on ``port`` through the pipeline and hand its outputs out.

        Listeners run after the lock is released, so one may inject again (a PTF test that
        answers a packet) without deadlock; a packet with no pipeline loaded is dropped.
        """
        with self.lock:
            if self.switch is None:
                self.drops += 1
                return
            self.switch.dp.now_us = self.now_us()
            try:
                outputs = [(out.port, out.data) for out in self.switch.send(port, data)]
            except ControlPlaneError:
                self.drops += 1
                return
            listeners = self._listeners.snapshot()
        for port_out, out in outputs:
            for listener in listeners:
                listener(port_out, out)
