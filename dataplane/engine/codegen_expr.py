"""Typed IR expressions to Python source, with P4's fixed-width arithmetic made explicit."""
from __future__ import annotations

from dataplane.errors import InternalError
from dataplane.ir import expr as E
from dataplane.ir import types as T
from dataplane.engine.structgen import class_name, default_value, py_name


def mask(width: int) -> int:
    return (1 << width) - 1


def signed_wrap(src: str, width: int) -> str:
    half = 1 << (width - 1)
    return f"((({src}) + {half}) & {mask(width)}) - {half}"


def wrap(src: str, t: T.Type) -> str:
    """Reduce ``src`` to the range of ``t`` (a no-op for types without a width)."""
    t = T.strip_newtype(t)
    if isinstance(t, T.Bits):
        return f"({signed_wrap(src, t.width)})" if t.signed else f"(({src}) & {mask(t.width)})"
    return src


def is_scalar(t: T.Type | None) -> bool:
    t = T.strip_newtype(t) if t is not None else None
    return not isinstance(t, (T.StructLike, T.Stack, T.Tuple, T.Extern))


def is_object(t: T.Type | None) -> bool:
    """Whether values of ``t`` are mutable objects in generated code (headers, structs, unions, stacks)."""
    return t is not None and isinstance(T.strip_newtype(t), (T.StructLike, T.Stack))


class ExprGen:
    """Python source for typed expressions; ``names`` maps P4 value names to Python expressions."""

    def __init__(self, program, names: dict[str, str], helpers):
        self.program = program
        self.names = names
        self.helpers = helpers  # the block generator: knows tables, calls and parser state
        self._leaf_parts: list[tuple[str, str, int]] = []
        # struct format -> name of its module-level packer; set by backend.generate (None: no struct packing).
        self.packers: dict[str, str] | None = None
        # (expression node, Python source): nodes already evaluated into a temporary (an l-value
        # evaluated once, before the call on the right of its assignment); matched by identity.
        self.bound: list[tuple[E.Expr, str]] = []

    def error_code(self, member: str) -> int:
        return self.program.errors.index(member)

    def __call__(self, e: E.Expr) -> str:
        if self.bound:
            for node, src in reversed(self.bound):
                if node is e:
                    return src
        method = getattr(self, "gen_" + type(e).__name__, None)
        if method is None:
            raise InternalError(f"no code generator for expression {type(e).__name__}")
        return method(e)

    # ---- leaves --------------------------------------------------------------------------------
    def gen_Constant(self, e):
        return str(e.value) if e.value >= 0 else f"({e.value})"

    def gen_BoolLiteral(self, e):
        return "True" if e.value else "False"

    def gen_StringLiteral(self, e):
        return repr(e.value)

    def gen_PathExpr(self, e):
        try:
            return self.names[e.name]
        except KeyError:
            raise InternalError(f"no binding for '{e.name}' in generated code") from None

    def gen_TypeMember(self, e):
        if e.type_name == "error":
            return str(self.error_code(e.member))
        t = self.program.types.get(e.type_name)
        if isinstance(t, T.Enum):
            i = t.members.index(e.member)
            return str(t.values[i] if t.values is not None else i)
        return repr(e.member)

    def gen_DontCareExpr(self, e):
        return "None"

    # ---- access ----------------------------------------------------------------------------------
    def gen_Member(self, e):
        bt = e.expr.type
        if isinstance(bt, T.Stack):
            base = self(e.expr)
            sob = self.error_code("StackOutOfBounds")
            if e.member == "next":
                return f"{base}.next({sob})"
            if e.member == "last":
                return f"{base}.last({sob})"
            if e.member == "lastIndex":
                return f"{base}.last_index()"
            if e.member == "size":
                return str(bt.size)
        if isinstance(bt, T.ApplyResult):
            call = self(e.expr)
            # Applying a table returns the ActionEntry that ran (hit flag and action name).
            if e.member == "hit":
                return f"{call}.hit"
            if e.member == "miss":
                return f"(not {call}.hit)"
            return f"{call}.name"
        return f"{self(e.expr)}.{py_name(e.member)}"

    def gen_Index(self, e):
        if isinstance(e.index, E.Constant):
            return f"{self(e.expr)}.elems[{e.index.value}]"
        return f"{self(e.expr)}.at({self(e.index)})"

    def gen_Slice(self, e):
        return f"(({self(e.expr)} >> {e.lo.value}) & {mask(e.hi.value - e.lo.value + 1)})"

    # ---- operators ----------------------------------------------------------------------------------
    def gen_Unary(self, e):
        x = self(e.operand)
        t = T.strip_newtype(e.type)
        if e.op == "!":
            return f"(not {x})"
        if e.op == "+":
            return x
        if e.op == "-":
            return wrap(f"-{x}", t)
        if isinstance(t, T.Bits) and not t.signed:
            return f"({x} ^ {mask(t.width)})"
        return f"(~{x})"

    def gen_Binary(self, e):
        op = e.op
        a, b = self(e.left), self(e.right)
        if op == "&&":
            return f"({a} and {b})"
        if op == "||":
            return f"({a} or {b})"
        if op in ("==", "!=") and (_is_init(e.left) or _is_init(e.right)):
            # A struct/header compared with a list or named-field expression: compare field by field.
            obj, init = (e.left, e.right) if _is_init(e.right) else (e.right, e.left)
            if isinstance(T.strip_newtype(obj.type), T.StructLike):
                same = self.equals_init(self(obj), T.strip_newtype(obj.type), init)
                return same if op == "==" else f"(not {same})"
        if op in ("==", "!=", "<", ">", "<=", ">="):
            return f"({a} {op} {b})"
        t = T.strip_newtype(e.type)
        if not isinstance(t, T.Bits):
            return f"({a} {op} {b})"
        w, signed = t.width, t.signed
        if op in ("+", "-", "*"):
            return wrap(f"{a} {op} {b}", t)
        if op in ("&", "|", "^"):
            return f"({a} {op} {b})"
        if op == "/":
            return f"div_u({a}, {b})"
        if op == "%":
            return f"mod_u({a}, {b})"
        if op == "|+|":
            return f"sat_add_s({a}, {b}, {w})" if signed else f"sat_add_u({a}, {b}, {w})"
        if op == "|-|":
            return f"sat_sub_s({a}, {b}, {w})" if signed else f"sat_sub_u({a}, {b})"
        if op == "<<":
            if isinstance(e.right, E.Constant):
                return "0" if e.right.value >= w else wrap(f"{a} << {e.right.value}", t)
            return f"to_signed(shl({a}, {b}, {w}), {w})" if signed else f"shl({a}, {b}, {w})"
        if op == ">>":
            return f"({a} >> {b})"
        if op == "++":
            lt, rt = T.strip_newtype(e.left.type), T.strip_newtype(e.right.type)
            left = f"({a} & {mask(lt.width)})" if lt.signed else a
            right = f"({b} & {mask(rt.width)})" if rt.signed else b
            joined = f"({left} << {rt.width}) | {right}"
            return f"({signed_wrap(joined, w)})" if signed else f"({joined})"
        raise InternalError(f"operator {op} on {t}")

    def equals_init(self, obj: str, t: T.StructLike, init: E.Expr) -> str:
        """``obj == init`` for a list/named-field initializer ``init`` of struct-like type ``t``."""
        if isinstance(init, E.ListExpr):
            pairs = list(zip(t.fields, init.elements))
        else:
            given = {f.name: f.value for f in init.fields}
            pairs = [(f, given[f.name]) for f in t.fields if f.name in given]
        parts = [f"{obj}._valid"] if isinstance(t, T.Header) else []
        for f, value in pairs:
            ft = T.strip_newtype(f.type)
            target = f"{obj}.{py_name(f.name)}"
            if _is_init(value) and isinstance(ft, T.StructLike):
                parts.append(self.equals_init(target, ft, value))
            else:
                parts.append(f"{target} == {self(value)}")
        return "(" + (" and ".join(parts) or "True") + ")"

    def gen_Mux(self, e):
        return f"({self(e.then)} if {self(e.cond)} else {self(e.otherwise)})"

    def gen_Cast(self, e):
        x = self(e.expr)
        src = T.strip_newtype(e.expr.type)
        dst = T.strip_newtype(e.type)
        if isinstance(dst, T.Bool):
            return f"({x} != 0)" if not isinstance(src, T.Bool) else x
        if isinstance(src, T.Bool):
            return f"(1 if {x} else 0)"
        if isinstance(dst, T.Enum):
            dst = dst.underlying or dst
        if isinstance(dst, T.Bits):
            if isinstance(src, T.Bits) and src.width <= dst.width and src.signed == dst.signed:
                return x
            return wrap(x, dst)
        return x

    def gen_Call(self, e):
        return self.helpers.call_expr(e)

    def gen_ListExpr(self, e):
        t = T.strip_newtype(e.type) if e.type is not None else None
        if isinstance(t, T.StructLike):
            return self.make_value(t, e.elements)
        # A tuple holds values: headers and structs in it are copies.
        return "(" + "".join(self.value_copy(x) + ", " for x in e.elements) + ")"

    def gen_StructInit(self, e):
        t = T.strip_newtype(e.type)
        if not isinstance(t, T.StructLike):
            raise InternalError(f"struct expression of type {t}")
        given = {f.name: f.value for f in e.fields}
        return self.make_value(t, [given.get(f.name) for f in t.fields])

    def gen_InvalidHeader(self, e):
        t = T.strip_newtype(e.type)
        return f"{class_name(t.name)}()"

    def make_value(self, t: T.StructLike, values) -> str:
        """A new header/struct object from field values in declaration order (None: the field's default)."""
        args = [self(v) if v is not None else default_value(f.type) for f, v in zip(t.fields, values)]
        return f"{class_name(t.name)}._make({', '.join(args)})"

    def value_copy(self, e: E.Expr) -> str:
        """``e`` as a value that nothing else refers to: objects not made by ``e`` itself are cloned."""
        src = self(e)
        if not is_object(e.type) or isinstance(e, (E.ListExpr, E.StructInit, E.InvalidHeader, E.Call)):
            return src
        return f"{src}._clone()"

    # ---- field lists (hash and checksum data) ----------------------------------------------------------
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
        codegen_layout); None without a packer registry or for an empty list."""
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


def _is_init(e: E.Expr) -> bool:
    return isinstance(e, (E.ListExpr, E.StructInit))


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
