"""Field lists (hash, checksum, digest and clone data) to Python: (valid, value, width) triples,
or the packed bytes built inline when the fields allow it. A mixin of ``ExprGen``.
"""
from __future__ import annotations

from dataplane.engine.codegen.values import mask
from dataplane.errors import InternalError
from dataplane.ir import expr as E
from dataplane.ir import types as T


class FieldListGen:
    """Needs ``__call__`` (an expression's source), ``packers`` and ``_leaf_parts`` from ExprGen."""

    def field_list(self, e: E.Expr) -> str:
        """``{a, b}`` or a header/struct as a tuple of (valid, value, width) for hashing and checksums.

        BMv2 leaves out fields of invalid headers; values are packed MSB-first.
        """
        items: list[str] = []
        self._leaf_parts = []
        self._leaves(e, "True", items)
        return "(" + "".join(i + ", " for i in items) + ")"

    def packed_field_list(self, e: E.Expr) -> str:
        """A field list as the bytes BMv2 hashes, built inline when one validity test covers it.

        Checksums over one header (the common case) become a single shift-or expression;
        other lists fall back to (valid, value, width) triples packed at run time.
        """
        packed = self.packed_int(e)
        if packed is None:
            return self.field_list(e)
        valid, value, nbytes = packed
        as_bytes = f"{value}.to_bytes({nbytes}, 'big')"
        return as_bytes if valid == "True" else f"({as_bytes} if {valid} else b'')"

    def _fixed_leaves(self, e: E.Expr) -> tuple[str, list[tuple[str, str, int]]] | None:
        """(the one validity test, [(valid, value, width)]) of a field list whose fields share
        one validity test and have fixed widths; None otherwise."""
        items: list[str] = []
        self._leaf_parts = []
        self._leaves(e, "True", items)
        parsed = self._leaf_parts
        valids = {v for v, _, _ in parsed}
        if len(valids) != 1 or any(not isinstance(w, int) for _, _, w in parsed):
            return None
        return next(iter(valids)), parsed

    def number_and_width(self, e: E.Expr) -> str:
        """``(number, width)``: a value, or a field list's fields (of valid and invalid headers
        alike) concatenated MSB-first with no padding, as psa_switch's externs take their data.
        With a varbit field, the (valid, value, width) triples instead."""
        number = self.concatenated(e)
        if number is None:
            return self.field_list(e)
        return f"({number[0]}, {number[1]})"

    def concatenated(self, e: E.Expr) -> tuple[str, int] | None:
        """(source of the number, width) of ``number_and_width``; None with a varbit field."""
        items: list[str] = []
        self._leaf_parts = []
        self._leaves(e, "True", items)
        parsed = self._leaf_parts
        if any(not isinstance(w, int) for _, _, w in parsed) or self._has_varbit(e):
            return None
        total = sum(w for _, _, w in parsed)
        parts, shift = [], total
        for _, value, width in parsed:
            shift -= width
            parts.append(f"(({value}) << {shift})" if shift else f"({value})")
        return f"({' | '.join(parts) or '0'})", total

    def ones_sum(self, e: E.Expr) -> str | None:
        """A sum congruent modulo 0xFFFF to ``concatenated(e)``'s number, and zero only when it
        is: the number cut into pieces at 16-bit boundaries (counted from its least significant
        end) that no field crosses, each piece a small integer, added. None with a varbit field.
        (PSA's InternetChecksum; ``csum16_sum`` is the same for v1model's end-padded bytes.)"""
        items: list[str] = []
        self._leaf_parts = []
        self._leaves(e, "True", items)
        parsed = self._leaf_parts
        if any(not isinstance(w, int) for _, _, w in parsed) or self._has_varbit(e):
            return None
        terms, current, start, offset = [], [], 0, 0
        for _, value, width in reversed(parsed):
            current.append(f"(({value}) << {offset - start})" if offset > start else f"({value})")
            offset += width
            if offset % 16 == 0:
                terms.append(current[0] if len(current) == 1 else f"({' | '.join(current)})")
                current, start = [], offset
        if current:
            terms.append(current[0] if len(current) == 1 else f"({' | '.join(current)})")
        return f"({' + '.join(terms) or '0'})"

    def packed_int(self, e: E.Expr) -> tuple[str, str, int] | None:
        """(validity test, big-endian integer, byte count) of a field list whose fields share
        one validity test and have fixed widths (zero bits pad the end to a byte); else None."""
        fixed = self._fixed_leaves(e)
        if fixed is None:
            return None
        valid, parsed = fixed
        return (valid, *_shift_or(parsed))

    def csum16_sum(self, e: E.Expr) -> tuple[str, str] | None:
        """(validity test, a sum congruent to the csum16 input modulo 0xFFFF) for a field list
        whose fields share one validity test and have fixed widths; else None.

        The RFC 1071 sum of the padded data is its big-endian number modulo 0xFFFF, and
        2**16 is 1 modulo 0xFFFF, so the number can be cut at any 16-bit boundary that no
        field crosses and the pieces added: small-int arithmetic instead of shifting every
        field into one wide integer. The sum is zero exactly when the number is.
        """
        fixed = self._fixed_leaves(e)
        if fixed is None:
            return None
        valid, parsed = fixed
        total = sum(w for _, _, w in parsed)
        end_all = -(-total // 16) * 16  # zero bits pad to bytes, then an odd byte count gets a zero byte
        chunks, current, offset = [], [], 0
        for _, value, width in parsed:
            current.append((value, offset, width))
            offset += width
            if offset % 16 == 0:
                chunks.append((current, offset))
                current = []
        if current:
            chunks.append((current, end_all))
        terms = []
        for fields, end in chunks:
            parts = [f"(({v}) << {end - o - w})" if end - o - w else f"({v})" for v, o, w in fields]
            terms.append(parts[0] if len(parts) == 1 else f"({' | '.join(parts)})")
        return valid, f"({' + '.join(terms) or '0'})"

    def packed_int_mixed(self, e: E.Expr) -> tuple[list[str], str, int, str] | None:
        """Like ``packed_int`` for a field list whose fields may depend on different headers'
        validity: (the validity tests, other than True, under which every field is present;
        the big-endian integer of all fields; its byte count; the (valid, value, width)
        triples for ``pack_fields`` when a test fails). None if a field is not fixed-width."""
        items: list[str] = []
        self._leaf_parts = []
        self._leaves(e, "True", items)
        parsed = self._leaf_parts
        if any(not isinstance(w, int) or w <= 0 for _, _, w in parsed) or self._has_varbit(e):
            return None
        valids = []
        for v, _, _ in parsed:
            if v != "True" and v not in valids:
                valids.append(v)
        number, nbytes = _shift_or(parsed)
        triples = "(" + "".join(i + ", " for i in items) + ")"
        return (valids, number, nbytes, triples,
                self.struct_pack([(value, width) for _, value, width in parsed]))

    def struct_pack(self, fields: list[tuple[str, int]]) -> str | None:
        """The bytes of ``fields`` (value source, width) packed MSB-first and zero-padded to a
        byte, as one call of a module-level ``struct`` packer (byte-aligned units, as in
        ``layout``); None without a packer registry or for an empty list."""
        if self.packers is None or not fields or any(w <= 0 for _, w in fields):
            return None
        units, group, offset, start = [], [], 0, 0
        for value, width in fields:
            group.append((value, offset, width))
            offset += width
            if offset % 8 == 0:
                units.append((group, start, offset))
                group, start = [], offset
        if group:
            units.append((group, start, offset + (-offset) % 8))
        codes, args = [], []
        for group, start, end in units:
            n = (end - start) // 8
            parts = [f"(({v}) << {end - o - w})" if end - o - w else f"({v})" for v, o, w in group]
            arg = parts[0] if len(parts) == 1 else f"({' | '.join(parts)})"
            if n in (1, 2, 4, 8):
                codes.append({1: "B", 2: "H", 4: "I", 8: "Q"}[n])
            else:
                codes.append(f"{n}s")
                arg = f"{arg}.to_bytes({n}, 'big')"
            args.append(arg)
        fmt = "!" + "".join(codes)
        name = self.packers.setdefault(fmt, f"_fl_pack{len(self.packers)}")
        return f"{name}({', '.join(args)})"

    def _has_varbit(self, e: E.Expr) -> bool:
        t = T.strip_newtype(e.type)
        if isinstance(e, E.ListExpr):
            return any(self._has_varbit(x) for x in e.elements)
        if isinstance(t, T.StructLike):
            return any(isinstance(T.strip_newtype(f.type), (T.VarBits, T.StructLike)) and
                       self._has_varbit(E.Member(e, f.name, type=f.type)) for f in t.fields)
        return isinstance(t, T.VarBits)

    def _leaves(self, e: E.Expr, valid: str, out: list[str]) -> None:
        t = T.strip_newtype(e.type)
        if isinstance(e, E.ListExpr):
            for x in e.elements:
                self._leaves(x, valid, out)
            return
        if isinstance(t, T.StructLike):
            base = self(e)
            v = f"{base}._valid" if isinstance(t, T.Header) else valid
            for f in t.fields:
                member = E.Member(e, f.name, type=f.type)
                self._leaves(member, v, out)
            return
        if isinstance(e, E.Member) and isinstance(T.strip_newtype(e.expr.type), T.Header):
            valid = f"{self(e.expr)}._valid"
        width = _leaf_width(t)
        value = self(e)
        if isinstance(t, T.Bool):
            value = f"(1 if {value} else 0)"
        elif isinstance(t, T.Bits) and t.signed:
            value = f"({value} & {mask(t.width)})"
        out.append(f"({valid}, {value}, {width})")
        self._leaf_parts.append((valid, value, width))


def _shift_or(parsed: list[tuple[str, str, int]]) -> tuple[str, int]:
    """(big-endian integer expression, byte count) of fixed-width (valid, value, width) fields
    packed MSB-first, zero bits padding the end to a byte."""
    total = sum(w for _, _, w in parsed)
    pad = (-total) % 8
    parts, shift = [], total + pad
    for _, value, width in parsed:
        shift -= width
        parts.append(f"(({value}) << {shift})" if shift else f"({value})")
    return f"({' | '.join(parts) or '0'})", (total + pad) // 8


def _leaf_width(t: T.Type) -> int:
    if isinstance(t, T.Enum):
        return t.underlying.width if t.underlying else 32
    if isinstance(t, (T.Bits, T.VarBits, T.Bool)):
        return t.bit_width()
    if isinstance(t, T.InfInt):
        return 32
    if isinstance(t, T.ErrorType):
        return 32
    raise InternalError(f"field of type {t} in a field list")
