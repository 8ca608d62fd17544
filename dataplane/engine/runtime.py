"""What generated pipeline code calls at run time: header stacks, control flow signals, operators.

Everything here is on the per-packet path, so it is plain Python with no per-call
allocation beyond what the P4 semantics need.
"""
from __future__ import annotations


class ParserError(Exception):
    """Raised inside generated parser code; ``code`` is the index of the P4 ``error`` member."""

    __slots__ = ("code",)

    def __init__(self, code: int):
        self.code = code


REJECTED = -1   # ParserError code of a parse that ended in `reject` where rejecting is an error


class Box:
    """Holds a top-level control's scalar ``out``/``inout`` parameter (eBPF's ``out bool accept``),
    so the control, its actions and the architecture share one value."""

    __slots__ = ("value",)

    def __init__(self, value=0):
        self.value = value


class ExitSignal(Exception):
    """``exit``: ends the current control (and its callers) after copy-out."""


EXIT = ExitSignal()


class ExitOuts(ExitSignal):
    """``exit`` inside an action with scalar out/inout parameters: carries their values (as the
    action would have returned them) so the caller still copies them out."""

    def __init__(self, values):
        self.values = values


class HeaderStack:
    """``H[size]``: the elements and ``nextIndex`` (named ``next_index`` here)."""

    __slots__ = ("elems", "next_index", "size", "_factory")

    def __init__(self, factory, size: int):
        self._factory = factory
        self.size = size
        self.elems = [factory() for _ in range(size)]
        self.next_index = 0

    def reset(self) -> None:
        for e in self.elems:
            e._invalidate()
        self.next_index = 0

    def _invalidate(self) -> None:
        """Every element invalid (a fresh ``out`` argument); ``nextIndex`` is left alone."""
        for e in self.elems:
            e._invalidate()

    def _clone(self) -> "HeaderStack":
        o = HeaderStack(self._factory, self.size)
        o.copy_from(self)
        return o

    def at(self, index: int):
        """``stack[index]`` for an index known only at run time.

        Out of range, p4c's BMv2 code runs an assignment to the element not at all and reads
        it as an uninitialized (zero, invalid) value: a fresh element that nothing keeps.
        """
        if 0 <= index < self.size:
            return self.elems[index]
        return self._factory()

    def at_or_error(self, index: int, stack_out_of_bounds: int):
        """``stack[index]`` in a parser (``extract``): StackOutOfBounds when out of range."""
        if 0 <= index < self.size:
            return self.elems[index]
        raise ParserError(stack_out_of_bounds)

    def next(self, stack_out_of_bounds: int):
        """The element ``.next`` refers to in a parser; raises StackOutOfBounds past the end."""
        if self.next_index >= self.size:
            raise ParserError(stack_out_of_bounds)
        return self.elems[self.next_index]

    def advance(self) -> None:
        self.next_index += 1

    def last(self, stack_out_of_bounds: int):
        if self.next_index == 0:
            raise ParserError(stack_out_of_bounds)
        return self.elems[self.next_index - 1]

    def last_index(self) -> int:
        return (self.next_index - 1) & 0xFFFFFFFF

    def push_front(self, count: int) -> None:
        """Shift elements up by ``count``; the first ``count`` become invalid, the last fall off."""
        if count <= 0:
            return
        count = min(count, self.size)
        kept = self.elems[: self.size - count]
        fresh = [self._factory() for _ in range(count)]
        self.elems[:] = fresh + kept
        self.next_index = min(self.next_index + count, self.size)

    def pop_front(self, count: int) -> None:
        """Shift elements down by ``count``; the last ``count`` become invalid."""
        if count <= 0:
            return
        count = min(count, self.size)
        kept = self.elems[count:]
        fresh = [self._factory() for _ in range(count)]
        self.elems[:] = kept + fresh
        self.next_index = max(self.next_index - count, 0)

    def copy_from(self, other: "HeaderStack") -> None:
        for mine, theirs in zip(self.elems, other.elems):
            mine.copy_from(theirs)
        self.next_index = other.next_index

    def __eq__(self, other) -> bool:
        return isinstance(other, HeaderStack) and self.elems == other.elems

    def __repr__(self) -> str:
        return f"HeaderStack(next_index={self.next_index}, elems={self.elems!r})"


def sat_add_u(a: int, b: int, width: int) -> int:
    r = a + b
    top = (1 << width) - 1
    return top if r > top else r


def sat_sub_u(a: int, b: int) -> int:
    r = a - b
    return 0 if r < 0 else r


def sat_add_s(a: int, b: int, width: int) -> int:
    r = a + b
    hi = (1 << (width - 1)) - 1
    lo = -(1 << (width - 1))
    return hi if r > hi else lo if r < lo else r


def sat_sub_s(a: int, b: int, width: int) -> int:
    return sat_add_s(a, -b, width)


def shl(a: int, b: int, width: int) -> int:
    """Left shift of a bit<W> value; shifting by W or more gives 0 without building huge ints."""
    return 0 if b >= width else (a << b) & ((1 << width) - 1)


def to_signed(value: int, width: int) -> int:
    value &= (1 << width) - 1
    return value - (1 << width) if value >> (width - 1) else value


def div_u(a: int, b: int) -> int:
    """bit<W> division; BMv2 aborts on division by zero, the emulator gives 0 instead of crashing."""
    return a // b if b else 0


def mod_u(a: int, b: int) -> int:
    return a % b if b else 0


class PK:
    """packet_in operations the generated parser calls out of line."""

    @staticmethod
    def advance(buf, pos: int, bits: int, too_short: int, invalid_argument: int) -> int:
        if bits % 8:
            raise ParserError(invalid_argument)  # BMv2 only advances whole bytes
        end = pos + bits // 8
        if end > len(buf):
            raise ParserError(too_short)
        return end

    @staticmethod
    def lookahead(buf, pos: int, bits: int, too_short: int) -> int:
        nbytes = (bits + 7) // 8
        if pos + nbytes > len(buf):
            raise ParserError(too_short)
        return int.from_bytes(buf[pos:pos + nbytes], "big") >> (nbytes * 8 - bits)


class HeaderOps:
    """Out-of-line extract/deparse for headers with varbit fields, and lookahead of a whole header."""

    def __init__(self, cls, layout):
        self.cls = cls
        self.layout = layout
        self.fixed_bytes = layout.width // 8

    def peek(self, buf, pos: int, too_short: int):
        h = self.cls()
        self._fill(h, buf, pos, too_short, 0)
        return h

    def extract_varbit(self, h, buf, pos: int, size_bits: int, too_short: int, header_too_short: int,
                       invalid_argument: int) -> int:
        return self._fill(h, buf, pos, too_short, size_bits, header_too_short, invalid_argument)

    def _fill(self, h, buf, pos, too_short, size_bits, header_too_short=None, invalid_argument=None) -> int:
        # Checks in BMv2's order (parser.cpp extract_VL): size not a multiple of 8 -> ParserInvalidArgument,
        # not enough bytes -> PacketTooShort, more than the varbit's maximum -> HeaderTooShort.
        fields = self.layout.fields
        var = [f for f in fields if f.varbit]
        if var and (size_bits % 8 or size_bits < 0):
            raise ParserError(invalid_argument if invalid_argument is not None else too_short)
        total = self.layout.width + (size_bits if var else 0)
        nbytes = total // 8
        if pos + nbytes > len(buf):
            raise ParserError(too_short)
        if var and size_bits > var[0].width:
            raise ParserError(header_too_short if header_too_short is not None else too_short)
        value = int.from_bytes(buf[pos:pos + nbytes], "big")
        offset = 0
        for f in fields:
            width = size_bits if f.varbit else f.width
            shift = total - offset - width
            v = (value >> shift) & ((1 << width) - 1)
            if f.signed:
                v = to_signed(v, width)
            owner, attr = _owner(h, f.name)
            setattr(owner, attr, v)
            if f.varbit:
                setattr(owner, attr + "__w", width)
            offset += width
        h._valid = True
        return pos + nbytes

    def deparse(self, h) -> bytes:
        value = 0
        total = 0
        for f in self.layout.fields:
            owner, attr = _owner(h, f.name)
            width = getattr(owner, attr + "__w") if f.varbit else f.width
            v = int(getattr(owner, attr)) & ((1 << width) - 1)
            value = (value << width) | v
            total += width
        return value.to_bytes(total // 8, "big")


def _owner(h, path: str):
    """(object, attribute) holding layout field ``path`` of header ``h`` (``outer.inner``: in a struct field)."""
    *outer, last = path.split(".")
    for part in outer:
        h = getattr(h, _attr(part))
    return h, _attr(last)


def _attr(name: str) -> str:
    import keyword
    return name + "_" if keyword.iskeyword(name) or name in ("None", "True", "False") else name


def pack_fields(fields) -> bytes:
    """(valid, value, width) triples to the bytes BMv2 hashes: valid fields MSB-first, zero-padded to a byte."""
    value = 0
    total = 0
    for valid, v, width in fields:
        if valid:
            value = (value << width) | (v & ((1 << width) - 1))
            total += width
    pad = (-total) % 8
    return (value << pad).to_bytes((total + pad) // 8, "big")
