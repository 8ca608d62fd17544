"""PNA extern objects, registered under their PNA names (the ``pna.p4`` prelude).

Where PNA differs from v1model only in names or argument order, the classes reuse
``externs.py``: PNA's ``Register.read`` returns the value, ``Counter`` and ``Meter`` take
upper-case type enums, and ``Meter.execute`` returns PNA's colour order (RED, GREEN,
YELLOW). Calling convention as in ``externs.py``: the packet context first.
"""
from __future__ import annotations

from dataplane.engine import externs as X
from dataplane.engine.hashes import hash_function, hash_result
from dataplane.engine.runtime import pack_fields

# PNA_HashAlgorithm_t member -> engine algorithm name (TARGET_DEFAULT: CRC32, as DPDK does).
PNA_HASHES = {"IDENTITY": "identity", "CRC32": "crc32", "CRC32_CUSTOM": "crc32_custom", "CRC16": "crc16",
              "CRC16_CUSTOM": "crc16_custom", "ONES_COMPLEMENT16": "csum16", "TARGET_DEFAULT": "crc32"}

# v1model colour (GREEN, YELLOW, RED = 0, 1, 2) -> PNA_MeterColor_t index (RED, GREEN, YELLOW).
_PNA_COLOR = {X.GREEN: 1, X.YELLOW: 2, X.RED: 0}


def _packed(data) -> bytes:
    return data if data.__class__ is bytes else pack_fields(data)


@X.register_extern("Register")
class PnaRegister(X.Register):
    cp_kind = "register"

    def read(self, ctx, index: int, width: int = 0) -> int:  # PNA: T read(in S index)
        return self.values[index] if 0 <= index < self.size else 0


@X.register_extern("Counter")
class PnaCounter(X.Counter):
    cp_kind = "counter"

    def __init__(self, name: str, size: int, counter_type: str = "PACKETS"):
        super().__init__(name, size, counter_type.lower())


@X.register_extern("DirectCounter")
class PnaDirectCounter:
    """PNA's DirectCounter: counts live on the entries of the table whose ``pna_direct_counter``
    names it (as v1model's direct counters do, so the control plane reads them the same way).

    ``count()`` counts the entry the table just matched; on a miss (the default action) there
    is no entry and nothing is counted. ``count(increment)`` adds ``increment`` to the bytes
    instead of the packet's length.
    """

    cp_kind = "direct_counter"

    def __init__(self, name: str, counter_type: str = "PACKETS"):
        self.name, self.counter_type = name, counter_type.lower()

    def count(self, ctx, increment: int | None = None) -> None:
        applying = ctx.applying
        if applying is None or applying[0].direct_counter is not self:
            raise X.ExternError(f"DirectCounter '{self.name}': count() must be called in an action of the "
                                f"table whose pna_direct_counter it is")
        entry = applying[2]
        if entry.hit:
            entry.packets += 1
            entry.bytes += ctx.packet_length if increment is None else increment

    def reset(self) -> None:
        pass   # the counts live on the table entries; the control plane clears them there


@X.register_extern("Meter")
class PnaMeter(X.Meter):
    cp_kind = "meter"

    def __init__(self, name: str, size: int, meter_type: str = "PACKETS"):
        super().__init__(name, size, meter_type.lower())

    def execute(self, ctx, index: int, width: int = 0) -> int:
        return _PNA_COLOR[self.execute_meter(ctx, index)]


@X.register_extern("Hash")
class PnaHash:
    def __init__(self, name: str, algorithm: str = "TARGET_DEFAULT", width: int = 32):
        self.name, self.width = name, width
        self.fn = hash_function(PNA_HASHES.get(algorithm, algorithm))

    def get_hash(self, ctx, *args) -> int:
        """``get_hash(data)``: the hash truncated to O; ``get_hash(base, data, max)``: base + hash % max.

        As for v1model's ``hash()``, a ``max`` of 0 counts as 1 (the result is ``base``).
        """
        if len(args) == 3:
            base, data, max_value = args
            return hash_result(self.fn(_packed(data)), base, max_value, self.width)
        return self.fn(_packed(args[0])) & ((1 << self.width) - 1)


@X.register_extern("InternetChecksum")
class InternetChecksum:
    """RFC 1071 one's-complement sum kept as a 16-bit state (PSA/PNA InternetChecksum)."""

    def __init__(self, name: str):
        self.name = name
        self.state = 0

    @staticmethod
    def _sum(data) -> int:
        raw = _packed(data)
        if len(raw) % 2:
            raw += b"\x00"
        s = 0
        for i in range(0, len(raw), 2):
            s += (raw[i] << 8) | raw[i + 1]
        while s >> 16:
            s = (s & 0xFFFF) + (s >> 16)
        return s

    def _fold(self, s: int) -> int:
        while s >> 16:
            s = (s & 0xFFFF) + (s >> 16)
        return s

    def clear(self, ctx) -> None:
        self.state = 0

    def add(self, ctx, data) -> None:
        self.state = self._fold(self.state + self._sum(data))

    def subtract(self, ctx, data) -> None:
        self.state = self._fold(self.state + (~self._sum(data) & 0xFFFF))

    def get(self, ctx, width: int = 16) -> int:
        return ~self.state & 0xFFFF

    def get_state(self, ctx, width: int = 16) -> int:
        return self.state

    def set_state(self, ctx, value: int) -> None:
        self.state = value & 0xFFFF
