"""Type checker, part 1: resolving written types, type declarations and implicit conversions."""
from __future__ import annotations

import dataclasses
import re

from dataplane.errors import Span
from dataplane.ir import decl as D
from dataplane.ir import expr as E
from dataplane.ir import types as T
from dataplane.ir.node import annotation
from dataplane.lang.limits import MAX_VARBIT_WIDTH, MAX_WIDTH, too_wide
from dataplane.lang.literals import wrap
from dataplane.records import record

# What an array may hold (p4c's arrays, 2025): headers (a header stack) or values of a fixed width.
_ARRAY_ELEMENTS = (T.Header, T.HeaderUnion, T.Bits, T.Bool, T.Struct, T.Enum, T.Stack)


@record(frozen=True, slots=True)
class Unknown(T.Type):
    """The type of an expression that already produced an error; it silences follow-on errors."""

    def __str__(self) -> str:
        return "<error>"


UNKNOWN = Unknown()
ERROR = T.ErrorType()


def is_unknown(*types: T.Type | None) -> bool:
    return any(t is None or isinstance(t, Unknown) for t in types)


def type_name(t: T.Type | None) -> str:
    return "<error>" if t is None else str(t)


class TypeMixin:
    """Resolves type references and type declarations; converts values between types."""

    # ---- resolving written types ------------------------------------------------------------
    def resolve(self, ref: E.TypeRef | None) -> T.Type:
        if ref is None:
            return T.VOID
        depth = self.depth = self.depth + 1     # counted with statements and expressions (CheckerState.visit)
        try:
            if depth > self.limits.nesting:
                self.too_deep(ref.span)
            return self._resolve(ref)
        finally:
            self.depth = depth - 1

    def _resolve(self, ref: E.TypeRef) -> T.Type:
        if isinstance(ref, E.BitsRef):
            width = self.const_int(ref.width, "a width")
            if width is None:
                return UNKNOWN
            if width < 0 or (ref.signed and width < 1):   # bit<0> is a zero-width value (p4c)
                self.error(f"invalid width {width} for {'int' if ref.signed else 'bit'}<W>", ref.span,
                           code="out-of-range")
                return UNKNOWN
            if width > MAX_WIDTH:
                self.error(too_wide(f"{'int' if ref.signed else 'bit'}<{width}>"), ref.width.span, code="too-wide")
                return UNKNOWN
            return T.Bits(width, ref.signed)
        if isinstance(ref, E.VarbitRef):
            # p4c limits bit<W> to 2048 bits but a varbit only to a width that fits an int
            # (Type_Varbits::get); nothing is laid out at that width, a packet bounds what is read.
            width = self.const_int(ref.width, "a width")
            if width is None or width < 0:
                if width is not None:
                    self.error(f"invalid width {width} for varbit<W>", ref.span, code="out-of-range")
                return UNKNOWN
            if width > MAX_VARBIT_WIDTH:
                self.error(f"varbit<{width}> is too large: a varbit's width is limited to {MAX_VARBIT_WIDTH} bits",
                           ref.width.span, code="too-wide")
                return UNKNOWN
            return T.VarBits(width)
        if isinstance(ref, E.BaseTypeRef):
            return {"bool": T.BOOL, "error": ERROR, "string": T.STRING, "void": T.VOID, "int": T.INT,
                    "match_kind": T.MATCH_KIND, "_": T.DontCare()}[ref.name]
        if isinstance(ref, E.StackRef):
            elem = self.resolve(ref.element)
            size = self.const_int(ref.size, "a header stack size")
            if is_unknown(elem) or size is None:
                return UNKNOWN
            if not isinstance(T.strip_newtype(elem), _ARRAY_ELEMENTS):
                self.error(f"array elements must be headers, header unions, bit<W>, int<W>, bool, structs or "
                           f"serializable enums, not {elem}", ref.span, code="invalid-type")
                return UNKNOWN
            if size <= 0:
                self.error(f"header stack size must be positive, got {size}", ref.size.span, code="out-of-range")
                return UNKNOWN
            return self.measured(T.Stack(elem, size), ref.span)
        if isinstance(ref, E.TupleRef):
            elements = tuple(self.resolve(r) for r in ref.elements)
            return self.measured(T.Tuple(elements), ref.span) if self.check_tuple_elements(elements, ref.span) \
                else UNKNOWN
        if isinstance(ref, E.ListRef):
            return self.measured(T.P4List(self.resolve(ref.element)), ref.span)
        if isinstance(ref, E.NamedTypeRef):
            return self.resolve_named(ref)
        raise AssertionError(ref)

    def resolve_named(self, ref: E.NamedTypeRef) -> T.Type:
        for frame in reversed(self.type_vars):
            if ref.name in frame:
                return frame[ref.name]
        if ref.name in self.generic_structs:
            if not ref.args:
                d = self.generic_structs[ref.name]
                self.error(f"{d.kind} '{ref.name}' is generic: give its type arguments, "
                           f"e.g. {ref.name}<{', '.join(d.type_params)}>", ref.span, code="arity")
                return UNKNOWN
            return self.specialize_struct(ref)
        t = self.types.get(ref.name)
        if t is None:
            self.error(f"unknown type '{ref.name}'", ref.span, code="unknown-type")
            return UNKNOWN
        if ref.args:
            args = tuple(self.resolve(a) for a in ref.args)
            if isinstance(t, T.Extern):
                if t.type_args:
                    self.error(f"'{ref.name}' is {t} already and cannot take type arguments again", ref.span,
                               code="invalid-type")
                    return UNKNOWN
                if not self.check_type_args(t.name, args, ref.span, struct=False):
                    return UNKNOWN
                if t.type_params and len(args) != len(t.type_params):
                    self.error(f"extern '{t.name}' takes {len(t.type_params)} type argument(s), got {len(args)}", ref.span,
                               code="arity")
                    return UNKNOWN
                return dataclasses.replace(t, type_args=args)
            if isinstance(t, T.Block):
                # `c<...>` inside c (a plain `c() x;` is checked with the instantiation)
                return t if self.check_self_reference(t.name, ref.span) else UNKNOWN
            self.error(f"type '{ref.name}' takes no type arguments", ref.span, code="arity")
            return UNKNOWN
        return t

    # ---- type declarations ----------------------------------------------------------------------
    def declare_type(self, name: str, t: T.Type, span: Span) -> None:
        if name in self.types and not isinstance(self.types[name], T.Block):
            self.error(f"'{name}' is already declared as a type", span, code="duplicate")
            return
        self.types[name] = t

    def declare_struct(self, d: D.StructTypeDecl) -> None:
        if d.type_params:
            self.check_type_params(d.type_params, (), d.span)
            self.check_generic_fields(d)
            # A generic struct or header is a template: each use with type arguments makes a type.
            if d.name in self.types:
                self.error(f"'{d.name}' is already declared as a type", d.span, code="duplicate")
                return
            self.generic_structs[d.name] = d
            self.types[d.name] = UNKNOWN
            return
        self.declare_type(d.name, self._struct_type(d, d.name), d.span)

    def specialize_struct(self, ref: E.NamedTypeRef) -> T.Type:
        """``S<T1, ...>`` of a generic struct or header ``S``: its fields with the arguments bound;
        the same arguments give the same type."""
        d = self.generic_structs[ref.name]
        args = tuple(self.resolve(a) for a in ref.args)
        if len(args) != len(d.type_params):
            self.error(f"{d.kind} '{d.name}' takes {len(d.type_params)} type argument(s), got {len(args)}", ref.span,
                       code="arity")
            return UNKNOWN
        if is_unknown(*args) or not self.check_type_args(d.name, args, ref.span, struct=True):
            return UNKNOWN
        key = (d.name, args)
        if key not in self.specialized:
            # p4c's name for the specialization (its P4Info shows it), an identifier too:
            # S<bit<8>> becomes S_bit8, S<bit<8>, T> S_bit8_T.
            name = d.name + "".join("_" + re.sub(r"\W", "_", re.sub(r"[<> ]", "", str(a))) for a in args)
            while name in self.types:
                name += "_"
            self.type_vars.append(dict(zip(d.type_params, args)))
            try:
                self.types[name] = self.specialized[key] = self._struct_type(d, name)
                self.specialized_from[name] = d.name
            finally:
                self.type_vars.pop()
        return self.specialized[key]

    def _struct_type(self, d: D.StructTypeDecl, name: str) -> T.Type:
        fields = []
        seen: set[str] = set()
        for f in d.fields:
            ft = self.resolve(f.type_ref)
            if f.name in seen:
                self.error(f"duplicate field '{f.name}' in {d.kind} '{d.name}'", f.span, code="duplicate")
            seen.add(f.name)
            if d.kind == "header" and not is_unknown(ft) and not _header_field_ok(ft):
                self.error(f"header field '{f.name}' cannot have type {ft}", f.span, code="invalid-type")
            if d.kind == "header_union" and not is_unknown(ft) and not isinstance(ft, T.Header):
                self.error(f"header_union field '{f.name}' must be a header, not {ft}", f.span, code="invalid-type")
            if d.kind == "struct":
                self.check_value_type(ft, f"field '{f.name}' of struct '{d.name}'", f.span)
            fields.append(T.StructField(f.name, ft, f.annotations))
        cls = {"header": T.Header, "struct": T.Struct, "header_union": T.HeaderUnion}[d.kind]
        t = cls(name, tuple(fields))
        self.measure_type(t, d.span)
        return t

    def declare_enum(self, d: D.EnumDecl) -> None:
        if len(set(d.members)) != len(d.members):
            self.error(f"duplicate member in enum '{d.name}'", d.span, code="duplicate")
        if d.underlying is None:
            self.declare_type(d.name, T.Enum(d.name, d.members), d.span)
            return
        base = self.resolve(d.underlying)
        if not isinstance(base, T.Bits):
            if not is_unknown(base):
                self.error(f"a serializable enum needs a bit<W> or int<W> type, not {base}", d.underlying.span,
                           code="invalid-type")
            return
        values = []
        for m, v in zip(d.members, d.values):
            value = self.const_int(v, f"the value of '{d.name}.{m}'")
            values.append(wrap(value or 0, base.width, base.signed))
        self.declare_type(d.name, T.Enum(d.name, d.members, base, tuple(values)), d.span)

    def declare_typedef(self, d: D.TypedefDecl) -> None:
        self.check_translation_annotation(d.annotations)
        base = self.resolve(d.type_ref)
        if is_unknown(base) or (d.is_new and not self.check_newtype_base(d, base)):
            self.types[d.name] = UNKNOWN
            return
        t = T.NewType(d.name, base) if d.is_new else base
        self.measure_type(t, d.span)
        self.declare_type(d.name, t, d.span)

    def resolve_params(self, params: tuple[D.ParamDecl, ...], optional_ok: bool = False) -> tuple[T.Param, ...]:
        """Resolve parameter declarations; ``optional_ok``: ``@optional`` is allowed (p4c allows it
        on extern functions and methods and on packages only)."""
        out = []
        seen: set[str] = set()
        for p in params:
            if p.name in seen:
                self.error(f"duplicate parameter '{p.name}'", p.span, code="duplicate")
            seen.add(p.name)
            marked = annotation(p.annotations, "optional") is not None
            if marked and not optional_ok:
                self.error(f"'{p.name}': an @optional parameter is only allowed in an extern function, "
                           "an extern method or a package", p.span, code="invalid-declaration")
            # A parameter with a default value or marked @optional may be left out of a call.
            out.append(T.Param(p.direction, self.resolve(p.type_ref), p.name, p.default is not None or marked))
            self.check_param_default(p, out[-1].type)
            self.check_param_block_type(out[-1], p)
            self.check_param_direction(out[-1], p)
        return tuple(out)

    def method_type(self, m: D.MethodDecl, owner: str = "") -> T.Method:
        self.check_type_params(m.type_params, m.params, m.span)
        self.type_vars.append({n: T.TypeVar(n, m.name) for n in m.type_params})
        try:
            ret = self.resolve(m.ret) if m.ret is not None else T.VOID
            self.check_method_return(ret, m.span)
            return T.Method(m.name, self.resolve_params(m.params, optional_ok=True), ret, m.type_params)
        finally:
            self.type_vars.pop()

    def declare_extern(self, d: D.ExternDecl) -> None:
        self.check_type_params(d.type_params, (), d.span)
        self.check_extern_decl(d)
        self.type_vars.append({n: T.TypeVar(n, d.name) for n in d.type_params})
        try:
            ctors, methods = [], []
            for m in d.methods:
                mt = self.method_type(m)
                for p, pd in zip(mt.params, m.params):
                    if isinstance(p.type, T.Block):  # p4c: only parsers, controls and packages take blocks
                        self.error(f"parameter '{p.name}' of extern '{d.name}' cannot have type "
                                   f"{p.type.kind} {p.type.name}", pd.span, code="invalid-type")
                if m.ret is None:
                    if m.name != d.name:
                        self.error(f"constructor '{m.name}' must be named like its extern '{d.name}'", m.span,
                                   code="invalid-declaration")
                    ctors.append(mt)
                else:
                    methods.append(mt)
        finally:
            self.type_vars.pop()
        abstract = tuple((m.name, annotation(m.annotations, "optional") is None) for m in d.methods if m.is_abstract)
        self.declare_type(d.name, T.Extern(d.name, d.type_params, tuple(ctors), tuple(methods), (), abstract), d.span)

    def declare_block_type(self, kind: str, name: str, type_params: tuple[str, ...],
                           params: tuple[D.ParamDecl, ...], ctor_params: tuple[D.ParamDecl, ...] = (),
                           span: Span | None = None) -> T.Block:
        self.check_type_params(type_params, params + ctor_params, span)
        self.type_vars.append({n: T.TypeVar(n, name) for n in type_params})
        try:
            block = T.Block(kind, name, self.resolve_params(params, optional_ok=kind == "package"), type_params,
                            self.resolve_params(ctor_params))
        finally:
            self.type_vars.pop()
        self.declare_type(name, block, span)
        return block

    # ---- conversions ----------------------------------------------------------------------------
    def convert(self, e: E.Expr, target: T.Type, what: str) -> E.Expr:
        """Return ``e`` converted to ``target`` where P4 allows it implicitly; report otherwise."""
        src = e.type
        if isinstance(e, (E.ListExpr, E.StructInit, E.InvalidHeader)) and not is_unknown(target) \
                and not isinstance(target, (T.DontCare, T.TypeVar)):
            converted = self.convert_initializer(e, target, what)
            if converted is not None:
                return converted
        if isinstance(e, E.InvalidHeader) and src is None and not is_unknown(target):
            self.error(f"'{{#}}' needs a header or header_union type here, not {target}", e.span, code="invalid-type")
            return dataclasses.replace(e, type=UNKNOWN)
        if is_unknown(src, target) or isinstance(target, (T.DontCare, T.TypeVar)):
            return e
        if src == target:
            return e
        if isinstance(e, E.DontCareExpr):
            return dataclasses.replace(e, type=target)
        # p4c binds an untyped integer to bit<W>/int<W>, or to a `type` over one (its
        # TypeVariableSubstitution::compose looks through Type_Newtype): `const vrf_id_t v = 0;`
        bits = T.strip_newtype(target) if isinstance(src, T.InfInt) else None
        if isinstance(bits, T.Bits):
            if isinstance(e, E.Constant):
                return E.Constant(wrap(e.value, bits.width, bits.signed), e.base, type=target, span=e.span)
            return E.Cast(None, e, type=target, span=e.span)
        if isinstance(src, T.Enum) and src.underlying is not None and src.underlying == target:
            return E.Cast(None, e, type=target, span=e.span)
        if isinstance(src, T.Tuple) and isinstance(target, T.Tuple) and len(src.elements) == len(target.elements):
            return e
        if isinstance(src, T.Block) and isinstance(target, T.Block) and block_compatible(src, target):
            return e  # an instance passed where a parser/control prototype is expected
        self.error(f"type mismatch in {what}: expected {target}, got {src}", e.span, code="type-mismatch")
        return dataclasses.replace(e, type=UNKNOWN) if hasattr(e, "type") else e

    def convert_initializer(self, e: E.Expr, target: T.Type, what: str) -> E.Expr | None:
        if isinstance(e, E.InvalidHeader):
            if isinstance(target, (T.Header, T.HeaderUnion)):
                return dataclasses.replace(e, type=target)
            return None
        if isinstance(target, T.P4List) and isinstance(e, E.ListExpr):
            elems = tuple(self.convert(x, target.element, f"element {i} of the list") for i, x in enumerate(e.elements))
            return E.ListExpr(elems, type=target, span=e.span)
        if not isinstance(target, (T.StructLike, T.Tuple)):
            return None
        if isinstance(e, E.ListExpr):
            slots = ([(f.name, f.type) for f in target.fields] if isinstance(target, T.StructLike)
                     else [(str(i), t) for i, t in enumerate(target.elements)])
            if len(slots) != len(e.elements):
                self.error(f"{what}: {target} has {len(slots)} field(s), the list gives {len(e.elements)}", e.span,
                           code="arity")
                return dataclasses.replace(e, type=UNKNOWN)
            elems = tuple(self.convert(x, t, f"field '{n}'") for x, (n, t) in zip(e.elements, slots))
            return E.ListExpr(elems, type=target, span=e.span)
        if isinstance(e, E.StructInit) and isinstance(target, T.StructLike):
            fields = []
            given = {f.name for f in e.fields}
            for f in e.fields:
                tf = target.get_field(f.name)
                if tf is None:
                    self.error(f"{target.kind} '{target.name}' has no field '{f.name}'", f.span, code="unknown-member")
                    continue
                fields.append(E.NamedField(f.name, self.convert(f.value, tf.type, f"field '{f.name}'"), span=f.span))
            missing = [f.name for f in target.fields if f.name not in given]
            if missing and not e.has_rest:
                self.error(f"{what}: missing field(s) {', '.join(missing)} of {target.kind} '{target.name}'", e.span,
                           code="arity")
            return E.StructInit(tuple(fields), e.has_rest, type=target, span=e.span)
        return None


def block_compatible(have: T.Block, want: T.Block) -> bool:
    """A parser or control may be passed where a prototype with the same apply signature is expected."""
    if have.kind != want.kind or len(have.params) != len(want.params):
        return False
    return all(a.direction == b.direction and (a.type == b.type or isinstance(b.type, T.TypeVar))
               for a, b in zip(have.params, want.params))


def _header_field_ok(t: T.Type) -> bool:
    t = T.strip_newtype(t)
    if isinstance(t, (T.Bits, T.VarBits, T.Bool)):
        return True
    if isinstance(t, T.Enum):
        return t.underlying is not None
    if isinstance(t, T.Struct):
        return all(_header_field_ok(f.type) for f in t.fields)
    if isinstance(t, T.Stack):   # an array of values of fixed width (p4c's array1.p4)
        return not isinstance(t.element, (T.Header, T.HeaderUnion)) and _header_field_ok(t.element)
    return False
