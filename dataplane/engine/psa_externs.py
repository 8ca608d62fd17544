"""PSA extern objects as BMv2's psa_switch runs them, in their own registry (``PSA_EXTERNS``).

PSA and PNA share extern names (``Register``, ``Counter``, ``Hash``...) with different
constructors and behaviour, so PSA keeps its classes apart from the global
``externs.EXTERN_TYPES`` and the PSA device passes ``PSA_EXTERNS`` to ``make_instances``.
Where psa_switch does what v1model's BMv2 does, the classes reuse ``externs.py``:
counters count packets and bytes, meters are two-rate three-colour markers, direct
counters and meters are updated by the table on a hit.

Calling convention as in ``externs.py``: the packet context first. Data arguments of the
generic methods (``Hash.get_hash``, ``InternetChecksum.add``...) arrive as ``(number, width)``,
the fields concatenated (``codegen.calls``); ``Digest.pack`` gets (valid, value, width) triples.
"""
from __future__ import annotations

from typing import Any

from dataplane.engine import externs as X
from dataplane.engine.hashes import hash_function, hash_result

PSA_EXTERNS: dict[str, type] = {}

# PSA_HashAlgorithm_t member -> engine algorithm (p4c's BMv2 PSA back end: TARGET_DEFAULT is crc16).
PSA_HASHES = {"IDENTITY": "identity", "CRC32": "crc32", "CRC32_CUSTOM": "crc32_custom", "CRC16": "crc16",
              "CRC16_CUSTOM": "crc16_custom", "ONES_COMPLEMENT16": "csum16", "TARGET_DEFAULT": "crc16"}

# BMv2 meter colour (GREEN, YELLOW, RED = 0, 1, 2) -> PSA_MeterColor_t index (RED, GREEN, YELLOW = 0, 1, 2).
PSA_COLOR = (1, 2, 0)
PSA_GREEN = 1


def psa_extern(name: str):
    def deco(cls: type) -> type:
        PSA_EXTERNS[name] = cls
        return cls
    return deco


def _number(data) -> tuple[int, int]:
    """(value, width in bits) of a data argument: ``(value, width)`` as the generated code
    passes it, or (valid, value, width) triples (a list with a varbit field), concatenated
    MSB-first. psa_switch takes every field, whether or not its header is valid."""
    if data[0].__class__ is int:
        return data
    value = width = 0
    for _, v, w in data:
        value = (value << w) | (v & ((1 << w) - 1))
        width += w
    return value, width


def _bytes(data) -> bytes:
    """The bytes psa_switch hashes: the number in whole bytes, zero bits padding it on the left."""
    value, width = _number(data)
    return value.to_bytes((width + 7) // 8, "big")


@psa_extern("Register")
class PsaRegister(X.Register):
    """``Register<T, S>(size)`` or ``(size, initial_value)``; ``read`` returns the value (0 out of range)."""

    cp_kind = "register"

    def __init__(self, name: str, size: int, *rest):
        width = rest[-1] if rest else 32
        self.initial = rest[0] if len(rest) >= 2 and isinstance(rest[0], int) else 0
        super().__init__(name, size, width)
        self.reset()

    def read(self, ctx, index: int, width: int = 0) -> int:
        return self.values[index] if 0 <= index < self.size else 0

    def reset(self) -> None:
        self.cells = [self.initial & ((1 << self.width) - 1)] * self.size


@psa_extern("Counter")
class PsaCounter(X.Counter):
    """``Counter<W, S>(n, type)``: BMv2 keeps packets and bytes whatever the type says."""

    cp_kind = "counter"

    def __init__(self, name: str, size: int, counter_type: str = "PACKETS", width: int = 32):
        super().__init__(name, size, counter_type.lower())
        self.width = width


@psa_extern("DirectCounter")
class PsaDirectCounter(X.DirectCounter):
    """Counts on the entries of the table whose ``psa_direct_counter`` names it, on every hit
    (p4c generates nothing for ``count()``; BMv2 counts the entry the table matched)."""

    cp_kind = "direct_counter"

    def __init__(self, name: str, counter_type: str = "PACKETS", width: int = 32):
        super().__init__(name, counter_type.lower())


@psa_extern("Meter")
class PsaMeter(X.Meter):
    """``execute(index)`` and ``execute(index, color)``: psa_switch meters colour-blind, so the
    colour given is ignored; out of range the result is GREEN."""

    cp_kind = "meter"

    def __init__(self, name: str, size: int, meter_type: str = "PACKETS"):
        super().__init__(name, size, meter_type.lower())

    def execute(self, ctx, index: int, color: int | None = None) -> int:
        return PSA_COLOR[self.execute_meter(ctx, index)]


@psa_extern("DirectMeter")
class PsaDirectMeter(X.DirectMeter):
    """The table marks the packet on a hit (``DirectMeter.color_for``); ``execute`` returns that
    colour as a PSA_MeterColor_t (GREEN when the table missed: nothing was metered)."""

    cp_kind = "direct_meter"

    def __init__(self, name: str, meter_type: str = "PACKETS"):
        super().__init__(name, meter_type.lower())

    def execute(self, ctx, color: int | None = None) -> int:
        return PSA_COLOR[ctx.direct_meter_color]


@psa_extern("Hash")
class PsaHash:
    """``get_hash(data)``: the hash truncated to O; ``get_hash(base, data, max)``: base + hash % max."""

    def __init__(self, name: str, algorithm: str = "TARGET_DEFAULT", width: int = 32):
        self.name, self.width = name, width
        self.fn = hash_function(PSA_HASHES.get(algorithm, algorithm))

    def get_hash(self, ctx, *args) -> int:
        if len(args) == 3:
            base, data, max_value = args
            return hash_result(self.fn(_bytes(data)), base, max_value, self.width)
        return self.fn(_bytes(args[0])) & ((1 << self.width) - 1)

    def reset(self) -> None:
        pass


@psa_extern("Checksum")
class PsaChecksum:
    """``Checksum<W>(algo)`` as psa_switch has it: ``update`` replaces the state with the hash of
    its data (it does not accumulate), taken over the data's value as a number written in
    the fewest bytes (leading zero bytes dropped; no bytes at all for 0)."""

    def __init__(self, name: str, algorithm: str = "TARGET_DEFAULT", width: int = 16):
        self.name, self.width = name, width
        self.fn = hash_function(PSA_HASHES.get(algorithm, algorithm))
        self.state = 0

    def clear(self, ctx) -> None:
        self.state = 0

    def update(self, ctx, data) -> None:
        value, _ = _number(data)
        self.state = self.fn(value.to_bytes((value.bit_length() + 7) // 8, "big"))

    def get(self, ctx, width: int = 0) -> int:
        return self.state & ((1 << self.width) - 1)

    def reset(self) -> None:
        self.state = 0


@psa_extern("InternetChecksum")
class PsaInternetChecksum:
    """RFC 1071 one's-complement sum. As psa_switch does, ``add``/``subtract`` take the data's
    fields concatenated into one number and fold it in 16 bits at a time from the least
    significant end, stopping when the rest is 0 (for whole 16-bit words, the usual sum).

    psa_switch adds (or adds the complement of) one word at a time with an end-around carry.
    The result is the same as folding the whole total at once: a number congruent to it
    modulo 0xFFFF (2**16 is 1 modulo 0xFFFF), 0 only when the total is 0. So ``add`` is
    ``(state + data) mod 0xFFFF`` and ``subtract`` ``(state - data) mod 0xFFFF``, with 0xFFFF
    for a nonzero total that is a multiple of 0xFFFF.
    """

    def __init__(self, name: str):
        self.name = name
        self.state = 0

    def clear(self, ctx) -> None:
        self.state = 0

    def add(self, ctx, data) -> None:
        value = data[0] if data[0].__class__ is int else _number(data)[0]
        if value:
            self.state = (self.state + value) % 0xFFFF or 0xFFFF

    def subtract(self, ctx, data) -> None:
        value = data[0] if data[0].__class__ is int else _number(data)[0]
        if not value:
            return   # psa_switch's loop subtracts nothing from 0
        # The words' complements sum to 0 only when every word is 0xFFFF and the state is 0.
        words = (value.bit_length() + 15) >> 4
        if self.state == 0 and value == (1 << (16 * words)) - 1:
            return
        self.state = (self.state - value) % 0xFFFF or 0xFFFF

    def get(self, ctx, width: int = 16) -> int:
        return ~self.state & 0xFFFF

    def get_state(self, ctx, width: int = 16) -> int:
        return self.state

    def set_state(self, ctx, value: int) -> None:
        self.state = value & 0xFFFF

    def reset(self) -> None:
        self.state = 0


@psa_extern("Random")
class PsaRandom:
    """``Random<T>(min, max)``: ``read`` draws uniformly from [min, max] with the device's seeded rng."""

    def __init__(self, name: str, lo: int = 0, hi: int = 0, width: int = 32):
        self.name, self.lo, self.hi, self.width = name, lo, hi, width
        self.rng: Any = None   # the device's random.Random, set when the device loads

    def read(self, ctx, width: int = 0) -> int:
        if self.hi <= self.lo:
            return self.lo & ((1 << self.width) - 1)
        return self.rng.randint(self.lo, self.hi) & ((1 << self.width) - 1)

    def reset(self) -> None:
        pass


@psa_extern("Digest")
class PsaDigest:
    """``pack(data)`` sends the data's field values to the control plane: the device's
    ``digests`` gets ``(digest instance name, values)``."""

    def __init__(self, name: str):
        self.name = name

    def pack(self, ctx, data) -> None:
        ctx.switch.digests.append((self.name, tuple(v for _, v, _ in data)))

    def reset(self) -> None:
        pass


@psa_extern("ActionProfile")
class PsaActionProfile(X.ActionProfile):
    cp_kind = "action_profile"


@psa_extern("ActionSelector")
class PsaActionSelector(X.ActionSelector):
    """``ActionSelector(algo, size, outputWidth)``; ``algorithm`` is the engine's name for ``algo``."""

    cp_kind = "action_selector"

    def __init__(self, name: str, algorithm: str = "TARGET_DEFAULT", size: int = 0, output_width: int = 16):
        super().__init__(name, PSA_HASHES.get(algorithm, algorithm), size, output_width)


@psa_extern("PacketReplicationEngine")
@psa_extern("BufferingQueueingEngine")
class PsaFixedFunction:
    """The package's replication and queueing engines: the device itself does their work."""

    def __init__(self, name: str):
        self.name = name

    def reset(self) -> None:
        pass


WIDTH_EXTERNS = frozenset({"Register", "Counter", "DirectCounter", "Hash", "Checksum", "Random"})

# Parser value sets are the language's, the same in every architecture.
PSA_EXTERNS["value_set"] = X.ValueSet
