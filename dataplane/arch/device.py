"""What every architecture's device shares: its program, name, random source, clock and outboxes."""
from __future__ import annotations

import random

from dataplane.errors import DataplaneError
from dataplane.ir import program as P


class ArchitectureError(DataplaneError):
    """The program does not fit the architecture as this emulator runs it."""


class Device:
    """Base of ``V1ModelSwitch`` and ``PnaNic``; the network layer sets ``now_us``."""

    architecture = ""

    def __init__(self, program: P.Program, name: str, seed: int):
        if program.architecture != self.architecture:
            raise ArchitectureError(f"program uses {program.architecture or 'no'} architecture, "
                                    f"not {self.architecture}")
        self.program = program
        self.name = name
        self.rng = random.Random(seed)
        self.now_us = 0
        self.digests: list[tuple[int, tuple]] = []
        self.log_messages: list[str] = []
        self.layouts = program.headers
