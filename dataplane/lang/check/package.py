"""Type checker, part 8: package types and their instances (``V1Switch(...) main;``).

A package argument may be a parser or control (constructed in place), another package
(constructed in place, or a top-level package instance named by its name, as PSA's
``IngressPipeline``), an extern instance, or a compile-time value; ``@optional`` parameters
and parameters with a default may be left out. The ``main`` instance becomes the program's
``Package``: its parsers and controls flattened into slots whose names are the parameter
paths (``p`` for V1Switch, ``ingress.ip`` for a PSA pipeline's parser), its extern arguments
top-level instances named the same way.
"""
from __future__ import annotations

import difflib

from dataplane.errors import Span
from dataplane.ir import decl as D
from dataplane.ir import expr as E
from dataplane.ir import program as P
from dataplane.ir import types as T
from dataplane.lang.check.types import UNKNOWN, is_unknown
from dataplane.lang.scope import Symbol
from dataplane.records import record

ARCHITECTURES = {"V1Switch": "v1model", "PNA_NIC": "pna", "PSA_Switch": "psa",
                 "ebpfFilter": "ebpf", "xdp": "xdp", "ubpf": "ubpf"}


@record(frozen=True, slots=True)
class PackageValue:
    """A checked package instance: its blocks, extern arguments and values by parameter path."""

    type_name: str
    blocks: tuple[tuple[str, str], ...] = ()
    block_args: tuple[tuple[E.Expr, ...], ...] = ()
    externs: tuple[P.ExternInstance, ...] = ()
    values: tuple[tuple[str, E.Expr], ...] = ()

    def under(self, prefix: str) -> "PackageValue":
        """The same value with every path under ``prefix`` (it is an argument of an outer package)."""
        return PackageValue(self.type_name, tuple((f"{prefix}.{s}", b) for s, b in self.blocks), self.block_args,
                            tuple(_renamed(x, f"{prefix}.{x.name}") for x in self.externs),
                            tuple((f"{prefix}.{s}", v) for s, v in self.values))


def _renamed(inst: P.ExternInstance, name: str) -> P.ExternInstance:
    import dataclasses
    return dataclasses.replace(inst, name=name)


class PackageMixin:
    """Declares package types and checks package instances."""

    def declare_package(self, d: D.BlockTypeDecl) -> None:
        """A package type. A name may be declared again with a different number of parameters.

        This goes beyond the P4_16 spec, which allows overloading by arity for functions,
        methods and constructors but not for packages (§ "Extern objects"); p4c accepts
        non-generic packages overloaded that way (p4c issue #3379). The bundled ``pna.p4``
        relies on it to declare both ``PNA_NIC`` forms; an instantiation picks the
        declaration whose parameters its arguments fit.
        """
        earlier = self.package_overloads.get(d.name, [])
        same = next((b for b, _ in earlier if len(b.params) == len(d.params)), None)
        if same is not None:
            self.error(f"package '{d.name}' is already declared with {len(d.params)} parameter(s); "
                       f"packages may only be overloaded by their number of parameters", d.span, code="duplicate")
            return
        block = self.declare_block_type("package", d.name, d.type_params, d.params, (), d.span)
        self.package_overloads[d.name] = earlier + [(block, d)]

    def check_package_instance(self, d: D.Instantiation, pkg: T.Block) -> None:
        """A package instance at the top level: ``main`` becomes the program's package; any
        other is a value an outer package may take by name."""
        value = self.package_value(d.type_ref, d.args, d.span, pkg)
        self.declare_value(Symbol(d.name, "package", pkg, value=value, span=d.span))
        if value is None or d.name != "main":
            return
        self.program.package = P.Package(d.name, value.type_name, value.blocks, value.block_args, d.annotations,
                                         tuple(x.name for x in value.externs))
        self.program.instances += value.externs
        self.program.architecture = ARCHITECTURES.get(value.type_name, value.type_name)

    def package_value(self, type_ref: E.TypeRef, raw_args: tuple[E.Argument, ...], span: Span,
                      pkg: T.Block) -> PackageValue | None:
        choice = self._package_overload(pkg, raw_args, span)
        if choice is None:
            return None
        pkg, decl = choice
        args = self._package_args(raw_args, pkg, span)
        if args is None:
            return None
        # Default arguments may name the package's type parameters (`V<H> v = EmptyV<H>()`):
        # they stand for the type arguments given, or stay parameters where none is.
        given = [self.resolve(a) for a in getattr(type_ref, "args", ())]
        frame = {n: (g if g is not None and not isinstance(g, T.DontCare) else T.TypeVar(n, pkg.name))
                 for n, g in zip(pkg.type_params, given + [None] * len(pkg.type_params))}
        self.type_vars.append(frame)
        try:
            # Type arguments given explicitly bind the blocks' types, as the blocks do (p4c unifies both).
            bindings = {n: g for n, g in zip(pkg.type_params, given) if not isinstance(g, T.DontCare)}
            value = self._package_parts(pkg, decl, args, bindings)
            self.check_package_inference(pkg, decl, bindings, span)
            return value
        finally:
            self.type_vars.pop()

    def _package_parts(self, pkg: T.Block, decl: D.BlockTypeDecl, args: dict,
                       bindings: dict[str, T.Type]) -> PackageValue:
        blocks, block_args, externs, values = [], [], [], []
        for param, pdecl in zip(pkg.params, decl.params):
            arg = args.get(param.name)
            if arg is None:
                if pdecl.default is None:
                    continue        # an @optional parameter left out
                arg = E.Argument(pdecl.default, param.name, span=pdecl.default.span)
            part = self._package_arg(param, arg, pkg, bindings, pdecl.type_ref)
            if part is None:
                continue
            if isinstance(part, PackageValue):
                inner = part.under(param.name)
                blocks += inner.blocks
                block_args += inner.block_args
                externs += inner.externs
                values += inner.values
            elif isinstance(part, P.ExternInstance):
                externs.append(part)
            elif isinstance(part, tuple):
                blocks.append((param.name, part[0]))
                block_args.append(part[1])
            else:
                values.append((param.name, part))
        return PackageValue(pkg.name, tuple(blocks), tuple(block_args), tuple(externs), tuple(values))

    def _package_overload(self, pkg: T.Block, args: tuple[E.Argument, ...], span: Span):
        overloads = self.package_overloads.get(pkg.name) or []
        n = len(args)
        fits = [(b, d) for b, d in overloads
                if sum(not p.has_default for p in b.params) <= n <= len(b.params)]
        if fits:
            return min(fits, key=lambda bd: len(bd[0].params))
        counts = " or ".join(sorted({_arity(b) for b, _ in overloads})) or "?"
        self.error(f"package '{pkg.name}' takes {counts} argument(s), got {n}", span, code="arity")
        return None

    def _package_args(self, args: tuple[E.Argument, ...], pkg: T.Block, span: Span) -> dict | None:
        """The arguments by parameter name: positional ones in order, named ones
        (``V1Switch(p = P(), ...)``) by name."""
        names = [p.name for p in pkg.params]
        if not any(a.name for a in args):
            return dict(zip(names, args))
        if not all(a.name for a in args):
            self.error(f"package '{pkg.name}': give every argument by name or none", span, code="package")
            return None
        by_name: dict[str, E.Argument] = {}
        for a in args:
            if a.name not in names:
                self.error(f"package '{pkg.name}' has no parameter '{a.name}'", a.span, code="package")
                return None
            if a.name in by_name:
                self.error(f"package argument '{a.name}' is given twice", a.span, code="duplicate")
                return None
            by_name[a.name] = a
        return by_name

    def _package_arg(self, param: T.Param, arg: E.Argument, pkg: T.Block, bindings: dict,
                     type_ref: E.TypeRef | None = None):
        """One argument: (block name, its constructor args) for a parser or control, a
        PackageValue, an ExternInstance, or a checked value; None after an error."""
        value, proto = arg.value, param.type
        if isinstance(proto, T.Block) and proto.kind == "package":
            return self._nested_package(param, arg, pkg, bindings, type_ref)
        if isinstance(proto, T.Extern):
            checked = self.check_expr(value)
            if not is_unknown(checked.type) and (not isinstance(checked.type, T.Extern)
                                                 or checked.type.name != proto.name):
                self.error(f"argument '{param.name}' of package '{pkg.name}' must be a {proto.name}, "
                           f"got {checked.type}", arg.span, code="package")
                return None
            if not isinstance(checked, E.ConstructorCall):
                self.error(f"argument '{param.name}' of package '{pkg.name}' must construct a {proto.name} "
                           f"in place: {proto.name}(...)", arg.span, code="package")
                return None
            if not self.check_abstract_construction(checked.type, arg.span):
                return None
            return P.ExternInstance(param.name, proto.name, getattr(checked.type, "type_args", ()),
                                    tuple(a.value for a in checked.args), (), arg.span)
        if not isinstance(proto, T.Block):
            checked = self.convert(self.check_expr(value, proto), proto, f"argument '{param.name}' of package "
                                                                          f"'{pkg.name}'")
            return checked
        if not isinstance(value, E.ConstructorCall):
            name = value.target.name if isinstance(value, E.Call) and isinstance(value.target, E.PathExpr) else ""
            if name and self.scope.lookup(name) is None:
                known = [n for n, t in self.types.items() if isinstance(t, T.Block) and t.kind != "package"]
                hint = difflib.get_close_matches(name, known, n=1)
                self.error(f"unknown parser or control '{name}'" + (f"; did you mean '{hint[0]}'?" if hint else ""),
                           value.target.span, code="unknown-name")
            else:
                self.error(f"argument '{param.name}' of package '{pkg.name}' must instantiate a parser or control",
                           arg.span, code="package")
            return None
        checked = self.check_expr(value)
        block = checked.type
        if is_unknown(block, proto):
            return None
        if not isinstance(block, T.Block) or block.kind != proto.kind:
            self.error(f"argument '{param.name}' of package '{pkg.name}' must be a {proto.kind}, got {block}", arg.span,
                       code="package")
            return None
        self.match_block(block, proto, bindings, arg.span, pkg.name)
        return block.name, self.ordered_args(block.constructor_params, checked.args, block.name, ctor=True) or ()

    def _nested_package(self, param: T.Param, arg: E.Argument, outer: T.Block, bindings: dict,
                        type_ref: E.TypeRef | None) -> PackageValue | None:
        value, proto = arg.value, param.type
        if isinstance(value, E.PathExpr):       # a package instance declared at the top level
            sym = self.scope.lookup(value.name)
            if sym is None or sym.kind != "package":
                self.error(f"argument '{param.name}' of package '{outer.name}' must be a package instance, "
                           f"got '{value.name}'", arg.span, code="package")
                return None
            inner, got = sym.value, sym.type
        elif isinstance(value, E.ConstructorCall):
            got = self.resolve(value.type_ref)
            if is_unknown(got):
                return None
            if not isinstance(got, T.Block) or got.kind != "package":
                self.error(f"argument '{param.name}' of package '{outer.name}' must be a package, got {got}", arg.span,
                           code="package")
                return None
            inner = self.package_value(value.type_ref, value.args, value.span, got)
        else:
            self.error(f"argument '{param.name}' of package '{outer.name}' must be a package instance", arg.span,
                       code="package")
            return None
        if inner is not None and got.name != proto.name:
            self.error(f"argument '{param.name}' of package '{outer.name}' must be a {proto.name}, "
                       f"got {got.name}", arg.span, code="package")
            return None
        if inner is not None and type_ref is not None:
            self._bind_nested(inner, got, type_ref, bindings, arg.span, outer.name)
        return inner

    def _bind_nested(self, inner: PackageValue, got: T.Block, type_ref: E.TypeRef, bindings: dict,
                     span: Span, outer: str) -> None:
        """p4c unifies a package argument's type (``Ingress<H>``, H from its blocks) with the
        parameter's (``Ingress<IH>``): what the inner blocks bind its type parameters to binds
        the outer's type arguments there, or must equal the types given."""
        decl = next((d for b, d in self.package_overloads.get(got.name) or [] if len(b.params) == len(got.params)),
                    None)
        if decl is None:
            return
        own: dict[str, T.Type] = {}   # the inner package's type parameters, as its blocks bind them
        slots = dict(inner.blocks)
        for p, pd in zip(got.params, decl.params):
            proto, block = p.type, self.types.get(slots.get(p.name, ""))
            if not (isinstance(proto, T.Block) and isinstance(block, T.Block)) or len(block.params) != len(proto.params):
                continue
            # `Parser<IH> p` in `package Ingress<IH>(...)`: the parser type's own parameters stand
            # for what the declaration's type arguments name.
            named = [getattr(r, "name", None) if not getattr(r, "args", ()) else None
                     for r in getattr(pd.type_ref, "args", ())]
            to_pkg = dict(zip(proto.type_params, named)) if named else {n: n for n in proto.type_params}
            for have, want in zip(block.params, proto.params):
                name = to_pkg.get(want.type.name) if isinstance(want.type, T.TypeVar) else None
                if name in got.type_params and not isinstance(have.type, T.TypeVar):
                    own.setdefault(name, have.type)
        for name, ref in zip(got.type_params, getattr(type_ref, "args", ())):
            have = own.get(name)
            want = self.resolve(ref)
            if have is None or is_unknown(have, want):
                continue
            if isinstance(want, T.TypeVar):
                want = bindings.setdefault(want.name, have)
            if want != have and not isinstance(want, (T.TypeVar, T.DontCare)):
                given = ", ".join(str(self.resolve(r)) for r in type_ref.args)
                self.error(f"package '{outer}' takes {got.name}<{given}> here, but this {got.name}'s blocks make "
                           f"its {name} {have}", span, code="type-mismatch")
                return

    def match_block(self, block: T.Block, proto: T.Block, bindings: dict, span: Span, pkg: str) -> None:
        if len(block.params) != len(proto.params):
            self.error(f"{block.kind} '{block.name}' has {len(block.params)} parameter(s); package '{pkg}' expects "
                       f"{len(proto.params)} as in '{proto.name}'", span, code="arity")
            return
        # One message per block: after the first mismatch the rest are usually its echoes.
        for i, (have, want) in enumerate(zip(block.params, proto.params), 1):
            if have.direction != want.direction:
                self.error(f"parameter {i} of '{block.name}' ('{have.name}') must be "
                           f"'{want.direction or 'directionless'}' as in '{proto.name}'", span, code="package")
                return
            wt = want.type
            if isinstance(have.type, T.TypeVar):
                continue    # a generic block (a default argument's) takes what the others bind
            if isinstance(wt, T.TypeVar):
                bound = bindings.setdefault(wt.name, have.type)
                if bound != have.type and not is_unknown(bound, have.type):
                    self.error(f"parameter {i} of '{block.name}' has type {have.type}, but package '{pkg}' has "
                               f"{wt.name} = {bound} (from its type arguments or its other blocks)", span,
                               code="type-mismatch")
                    return
            elif have.type != wt and not is_unknown(have.type, wt):
                self.error(f"parameter {i} of '{block.name}' has type {have.type}, expected {wt}", span,
                           code="type-mismatch")
                return


def _arity(b: T.Block) -> str:
    least = sum(not p.has_default for p in b.params)
    return str(least) if least == len(b.params) else f"{least} to {len(b.params)}"


__all__ = ["ARCHITECTURES", "PackageMixin", "PackageValue", "UNKNOWN"]
