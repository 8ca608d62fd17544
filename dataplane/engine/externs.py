"""v1model extern objects: registers, counters, meters, action profiles and selectors.

Each class is registered under its P4 extern name. Methods follow the generated code's
calling convention: the packet context first, then the ``in`` arguments, then the
widths of scalar ``out`` arguments; values of ``out`` arguments are returned.
"""
from __future__ import annotations

from array import array
from typing import Callable

from dataplane.errors import DataplaneError

EXTERN_TYPES: dict[str, type] = {}

GREEN, YELLOW, RED = 0, 1, 2


def register_extern(name: str) -> Callable[[type], type]:
    def deco(cls: type) -> type:
        EXTERN_TYPES[name] = cls
        return cls
    return deco


class ExternError(DataplaneError):
    """A control-plane call on an extern instance was invalid (bad index, bad rates...)."""


def _check_index(kind: str, name: str, index: int, size: int) -> None:
    if not 0 <= index < size:
        raise ExternError(f"{kind} '{name}': index {index} is out of range (size {size})")


# The smallest unsigned array type of each width (``array`` item sizes are the platform's C types').
_CELL_TYPES = sorted(((array(code).itemsize * 8, code) for code in "BHILQ"), key=lambda c: c[0])


def register_cells(size: int, width: int) -> array | list[int]:
    """``size`` zero cells of ``width`` bits: an unsigned ``array`` of the smallest item that holds
    them (a k=16 fat-tree's 320 allreduce switches keep 35 registers of 4,096 cells each: as lists,
    8 bytes a cell, 368 MB; as arrays of 32-bit items, half that), a list past 64 bits. Cells
    hold the value masked to the width, so every value written fits."""
    cells = no_cells(width)
    grow_cells(cells, size, width)
    return cells


def no_cells(width: int) -> array | list[int]:
    """Empty cells of the type ``register_cells`` makes for ``width`` bits (a ``Register`` not yet used)."""
    for bits, code in _CELL_TYPES:
        if 0 < width <= bits:
            return array(code)
    return []


def grow_cells(cells: array | list[int], size: int, width: int) -> None:
    """Append ``size`` zero cells to ``cells`` in place: the object stays the one the generated
    code bound (``codegen.inline.register_bindings``)."""
    if isinstance(cells, array):
        cells.frombytes(bytes(size * cells.itemsize))
    else:
        cells.extend([0] * size)


@register_extern("register")
class Register:
    """v1model ``register<T>``. Its cells are made when first used, not when the switch is built:
    a fabric's switches that never run a packet (a k=16 allreduce fat-tree's idle aggregation and
    core switches, the other rank's half of it) then hold none (issue 36: 188 MB of 320
    switches' registers). ``cells`` is the array itself, empty until ``warm`` fills it in place;
    ``values`` warms it first, so every reader and writer outside the generated code sees the
    cells; the device warms its registers before the generated code first runs
    (``V1ModelSwitch.run_work``), which binds ``cells`` (``codegen.inline``)."""

    def __init__(self, name: str, size: int, width: int = 32):
        self.name, self.size, self.width = name, size, width
        self.cells = no_cells(width)

    @property
    def cold(self) -> bool:
        """True until the cells are made (a register of size 0 is never cold)."""
        return len(self.cells) < self.size

    def warm(self) -> None:
        """Make the cells (all zero), in place, if not yet made."""
        missing = self.size - len(self.cells)
        if missing > 0:
            grow_cells(self.cells, missing, self.width)

    @property
    def values(self) -> array | list[int]:
        """The cells, made first if not yet."""
        if len(self.cells) < self.size:
            self.warm()
        return self.cells

    def read(self, ctx, index: int, width: int) -> int:
        return self.values[index] if 0 <= index < self.size else 0

    def read_keep(self, ctx, index: int, current: int) -> int:
        """``read`` as the generated code calls it: out of range leaves the destination as it was (BMv2)."""
        return self.values[index] if 0 <= index < self.size else current

    def write(self, ctx, index: int, value: int) -> None:
        if 0 <= index < self.size:
            self.values[index] = value & ((1 << self.width) - 1)

    # control plane
    def cp_read(self, index: int) -> int:
        _check_index("register", self.name, index, self.size)
        return self.values[index]

    def cp_write(self, index: int, value: int) -> None:
        _check_index("register", self.name, index, self.size)
        if not 0 <= value < (1 << self.width):
            raise ExternError(f"register '{self.name}': value {value} does not fit in {self.width} bits")
        self.values[index] = value

    def reset(self) -> None:
        # in place: generated code holds the cells (codegen.inline); cold cells are all zero already
        if not self.cold:
            self.cells[:] = register_cells(self.size, self.width)


@register_extern("counter")
class Counter:
    def __init__(self, name: str, size: int, counter_type: str = "packets"):
        self.name, self.size, self.counter_type = name, size, counter_type
        self.packets = [0] * size
        self.bytes = [0] * size

    def count(self, ctx, index: int) -> None:
        if 0 <= index < self.size:
            self.packets[index] += 1
            self.bytes[index] += ctx.packet_length

    def cp_read(self, index: int) -> tuple[int, int]:
        _check_index("counter", self.name, index, self.size)
        return self.packets[index], self.bytes[index]

    def cp_write(self, index: int, packets: int, nbytes: int) -> None:
        _check_index("counter", self.name, index, self.size)
        self.packets[index], self.bytes[index] = packets, nbytes

    def reset(self) -> None:
        self.packets = [0] * self.size
        self.bytes = [0] * self.size


@register_extern("direct_counter")
class DirectCounter:
    """Counts live on the table entries (see ``table_runtime``); ``count()`` is a no-op as in BMv2."""

    def __init__(self, name: str, counter_type: str = "packets"):
        self.name, self.counter_type = name, counter_type

    def count(self, ctx) -> None:
        pass

    def reset(self) -> None:
        pass


class _TrTCM:
    """Two-rate three-colour marker (RFC 2698) with rates in units per microsecond, as BMv2 configures."""

    __slots__ = ("cir", "cbs", "pir", "pbs", "tc", "tp", "last_us", "configured")

    def __init__(self):
        self.configured = False
        self.cir = self.cbs = self.pir = self.pbs = 0.0
        self.tc = self.tp = 0.0
        self.last_us = 0

    def set_rates(self, cir: float, cbs: int, pir: float, pbs: int) -> None:
        if cir > pir:
            raise ExternError("meter: committed rate must not exceed peak rate")
        self.cir, self.cbs, self.pir, self.pbs = cir, cbs, pir, pbs
        self.tc, self.tp = float(cbs), float(pbs)
        self.configured = True

    def color(self, now_us: int, size: int) -> int:
        if not self.configured:
            return GREEN
        elapsed = max(now_us - self.last_us, 0)
        self.last_us = now_us
        self.tc = min(self.cbs, self.tc + elapsed * self.cir)
        self.tp = min(self.pbs, self.tp + elapsed * self.pir)
        if self.tp < size:
            return RED
        if self.tc < size:
            self.tp -= size
            return YELLOW
        self.tp -= size
        self.tc -= size
        return GREEN


@register_extern("meter")
class Meter:
    def __init__(self, name: str, size: int, meter_type: str = "packets"):
        self.name, self.size, self.meter_type = name, size, meter_type
        self.cells = [_TrTCM() for _ in range(size)]

    def execute_meter(self, ctx, index: int, width: int = 2) -> int:
        if not 0 <= index < self.size:
            return GREEN
        size = ctx.packet_length if self.meter_type == "bytes" else 1
        return self.cells[index].color(ctx.now_us, size)

    def set_rates(self, index: int, cir: float, cbs: int, pir: float, pbs: int) -> None:
        _check_index("meter", self.name, index, self.size)
        self.cells[index].set_rates(cir, cbs, pir, pbs)

    def reset(self) -> None:
        self.cells = [_TrTCM() for _ in range(self.size)]


@register_extern("direct_meter")
class DirectMeter:
    """One marker per table entry; the table computes the colour on a hit and ``read`` returns it."""

    def __init__(self, name: str, meter_type: str = "packets"):
        self.name, self.meter_type = name, meter_type
        self.rates: tuple | None = None
        self._markers: list[_TrTCM] = []

    def color_for(self, entry, ctx) -> int:
        if entry.meter is None:
            entry.meter = _TrTCM()
            self._markers.append(entry.meter)
            if self.rates is not None:
                entry.meter.set_rates(*self.rates)
        size = ctx.packet_length if self.meter_type == "bytes" else 1
        return entry.meter.color(ctx.now_us, size)

    def read(self, ctx, width: int = 2) -> int:
        return ctx.direct_meter_color

    def set_rates(self, cir: float, cbs: int, pir: float, pbs: int) -> None:
        """Rates for every entry: the ones whose meter already runs and those added later."""
        _TrTCM().set_rates(cir, cbs, pir, pbs)  # validate before changing anything
        self.rates = (cir, cbs, pir, pbs)
        for marker in self._markers:
            marker.set_rates(cir, cbs, pir, pbs)

    def set_entry_rates(self, entry, cir: float, cbs: int, pir: float, pbs: int) -> None:
        """Rates for one table entry (BMv2's ``meter_set_rates`` with the entry handle as index)."""
        marker = _TrTCM()
        marker.set_rates(cir, cbs, pir, pbs)
        entry.meter = marker
        self._markers.append(marker)

    def reset(self) -> None:
        self.rates = None
        self._markers = []


@register_extern("action_profile")
class ActionProfile:
    def __init__(self, name: str, size: int = 0):
        self.name, self.size = name, size

    def reset(self) -> None:
        pass


@register_extern("action_selector")
class ActionSelector:
    def __init__(self, name: str, algorithm: str = "crc16", size: int = 0, output_width: int = 16):
        self.name, self.algorithm, self.size, self.output_width = name, algorithm, size, output_width

    def reset(self) -> None:
        pass


@register_extern("value_set")
class ValueSet:
    """A parser value set: at most ``size`` members, each a (value, mask) over the select keys
    concatenated most significant first, as BMv2 keeps a ``parse_vset``. ``widths`` are the
    widths of the keys (the element type's fields, flattened)."""

    def __init__(self, name: str, size: int, widths: tuple[int, ...] = (32,)):
        self.name, self.size, self.widths = name, size, tuple(widths)
        self.width = sum(self.widths)
        self.members: list[tuple[int, int]] = []

    def matches(self, keys: tuple) -> bool:
        key = 0
        for value, width in zip(keys, self.widths):
            key = (key << width) | (int(value) & ((1 << width) - 1))
        return any(key & mask == value for value, mask in self.members)

    def reset(self) -> None:
        self.members = []

    # control plane
    def cp_add(self, value: int, mask: int | None = None) -> None:
        member = self._member(value, mask)
        if member in self.members:
            return
        if len(self.members) >= self.size:
            raise ExternError(f"value_set '{self.name}' is full ({self.size} members)")
        self.members.append(member)

    def cp_remove(self, value: int, mask: int | None = None) -> None:
        member = self._member(value, mask)
        if member not in self.members:
            raise ExternError(f"value_set '{self.name}' has no member {value:#x}")
        self.members.remove(member)

    def _member(self, value: int, mask: int | None) -> tuple[int, int]:
        full = (1 << self.width) - 1
        mask = full if mask is None else mask
        if not 0 <= value <= full or not 0 <= mask <= full:
            raise ExternError(f"value_set '{self.name}': {value:#x} does not fit in {self.width} bits")
        return value & mask, mask


@register_extern("Checksum16")
class Checksum16:
    """v1model's deprecated ``Checksum16``: ``get(data)`` is the Internet checksum (csum16, as
    ``update_checksum`` computes it) of the data's fields packed MSB-first. simple_switch has no
    such extern (p4c's JSON names it and BMv2 cannot load it); the declaration is v1model.p4's."""

    def __init__(self, name: str):
        self.name = name

    def get(self, ctx, data) -> int:
        from dataplane.engine.hashes import csum16
        from dataplane.engine.runtime import pack_fields

        return csum16(data if data.__class__ is bytes else pack_fields(data))

    def reset(self) -> None:
        pass
