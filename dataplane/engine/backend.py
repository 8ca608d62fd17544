"""IR to an executable pipeline: generate one Python module per program, compile it once.

The module defines a class per struct-like type and ``build(_rt)``, which returns the
parser, control and action functions as closures over one switch's tables and extern
instances. Generated source is registered with ``linecache`` under ``<p4:FILE>`` so
tracebacks and debuggers show it; each line generated for a P4 statement, table, action or
parser state ends with a comment naming its P4 position, which ``source_map`` reads back
(a traceback or a failed ``assert()`` names the P4 file and line).
"""
from __future__ import annotations

import hashlib
import linecache
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dataplane.engine import runtime, source_map
from dataplane.engine.codegen.block import BlockGen, ident
from dataplane.engine.codegen.chunks import compile_in_pieces, split_build
from dataplane.engine.codegen.expr import is_scalar
from dataplane.engine.codegen.inline import register_bindings
from dataplane.engine.codegen.layout import struct_format, struct_units, unpack_format
from dataplane.engine.codegen.stmt import Names, StmtGen
from dataplane.engine.structgen import class_name, default_value, py_name, struct_classes
from dataplane.errors import InternalError
from dataplane.gc_pause import paused_gc
from dataplane.ir import expr as E
from dataplane.ir import program as P
from dataplane.ir import types as T
from dataplane.ir.node import walk

GENERATOR_VERSION = 3

_PRELUDE = """\
from dataplane.engine.runtime import (EXIT, ExitOuts, ExitSignal, HeaderOps, HeaderStack, ParserError, PK, div_u, mod_u, pack_fields,
    sat_add_s, sat_add_u, sat_sub_s, sat_sub_u, shl, to_signed)
from struct import Struct as _Struct, error as _StructError
"""


@dataclass
class CompiledPipeline:
    """A program's generated module, compiled once; ``instantiate`` builds one switch's functions."""

    program: P.Program
    source: str
    filename: str
    namespace: dict[str, Any]

    def instantiate(self, rt: Any) -> dict[str, Any]:
        return self.namespace["build"](rt)

    def extern_functions(self) -> set[str]:
        """The extern functions the program calls, which the architecture must implement."""
        global _LAST_EXTERNS
        if _LAST_EXTERNS[0] is not self.program:
            _LAST_EXTERNS = (self.program, frozenset(_extern_functions(self.program)))
        return set(_LAST_EXTERNS[1])

    def struct_class(self, type_name: str) -> type:
        return self.namespace[class_name(type_name)]

    def line_map(self) -> dict[int, Any]:
        """Generated-module line -> the P4 ``Span`` it was generated for (lines of P4 statements,
        tables, actions and parser states)."""
        return source_map.line_map(self.source)


_CACHE: dict[str, CompiledPipeline] = {}
# The last program object compiled: the switches of a fabric share one program, and generating
# its source again for each (to find it in _CACHE) was most of building a large fabric. One
# entry, so that programs compiled and dropped (a test suite's thousands) are not kept alive.
_LAST = (None, False, None)        # (program, reject_is_error, pipeline)
_LAST_EXTERNS = (None, frozenset())  # (program, its extern functions)


def compile_pipeline(program: P.Program, *, reject_is_error: bool = False) -> CompiledPipeline:
    """Generate and compile Python for ``program`` (cached by the source's hash).

    ``reject_is_error``: a parse ending in ``reject`` raises ``ParserError(REJECTED)`` (the
    eBPF targets) instead of ending as if accepted (BMv2); see ``ParserGen``.
    """
    global _LAST
    if _LAST[0] is program and _LAST[1] == reject_is_error:
        return _LAST[2]
    with paused_gc():  # a big program's generated code is millions of long-lived objects
        pipeline = _compile_pipeline(program, reject_is_error)
    _LAST = (program, reject_is_error, pipeline)
    return pipeline


def _compile_pipeline(program: P.Program, reject_is_error: bool) -> CompiledPipeline:
    source = generate(program, reject_is_error=reject_is_error)
    key = hashlib.sha256(f"{GENERATOR_VERSION}\0{source}".encode()).hexdigest()
    cached = _CACHE.get(key)
    if cached is not None:
        if cached.program is program:
            return cached
        # The same source from another compile of the program: reuse the module, so a JIT
        # (PyPy) keeps what it compiled for it across runs in one process.
        return CompiledPipeline(program, source, cached.filename, cached.namespace)
    filename = f"<p4:{Path(program.source).name}:{key[:8]}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    source_map.register(filename, source)
    namespace: dict[str, Any] = {"__name__": f"p4_{key[:8]}"}
    try:
        compile_in_pieces(source, filename, namespace)
    except SyntaxError as err:   # a generator bug: say so, rather than show a traceback
        raise InternalError(f"the code generated for {program.source} does not compile: {err.msg} "
                            f"at line {err.lineno}: {(err.text or '').strip()}") from err
    pipeline = CompiledPipeline(program, source, filename, namespace)
    _CACHE[key] = pipeline
    return pipeline


def generate(program: P.Program, *, reject_is_error: bool = False) -> str:
    """The Python source of the pipeline module for ``program``, its lines commented with their
    P4 positions (``source_map``)."""
    locator = source_map.Locator()
    out = [_PRELUDE, struct_classes(program.types), ""]
    for name, layout in program.headers.items():
        units = struct_units(layout)
        if units is not None:
            out.append(f"_unpack_{name} = _Struct({unpack_format(units)!r}).unpack_from")
            out.append(f"_pack_{name} = _Struct({struct_format(units)!r}).pack")
    out.append("")
    for block in list(program.parsers.values()) + list(program.controls.values()):
        out.append(_locals_class(block))
    packers: dict[str, str] = {}   # field-list struct formats the generators ask for
    packers_at = len(out)
    out.append("def build(_rt):")
    out.append("    ACTIONS = {}")
    for name, _layout in program.headers.items():
        out.append(f"    H_{name} = HeaderOps({class_name(name)}, _rt.layouts[{name!r}])")
    for inst in program.instances:
        out.append(f"    x_{inst.name} = _rt.instances[{inst.name!r}]")
        out += register_bindings(program, inst, f"x_{inst.name}")
    for block in list(program.parsers.values()) + list(program.controls.values()):
        for inst in block.instances:
            out.append(f"    x_{ident(block.name, inst.name)} = _rt.instances[{block.name + '.' + inst.name!r}]")
            out += register_bindings(program, inst, f"x_{ident(block.name, inst.name)}")
    for fname in sorted(_extern_functions(program)):
        out.append(f"    f_{fname} = _rt.functions[{fname!r}]")
        if fname == "hash" and program.architecture == "v1model":
            out.append("    f_hash_algorithms = f_hash.algorithms")
    for fn in program.functions.values():
        _function(program, fn, out, packers, locator)
    for parser in program.parsers.values():
        gen = BlockGen(program, parser, out)
        gen.locator = locator
        gen.expr.packers = packers
        gen.reject_is_error = reject_is_error
        gen.parser()
    for control in program.controls.values():
        gen = BlockGen(program, control, out)
        gen.locator = locator
        gen.expr.packers = packers
        gen.control()
    out[packers_at:packers_at] = [f"{name} = _Struct({fmt!r}).pack" for fmt, name in packers.items()]
    parsers = ", ".join(f"{p!r}: P_{p}" for p in program.parsers)
    controls = ", ".join(f"{c!r}: C_{c}" for c in program.controls)
    out.append(f"    return {{'parsers': {{{parsers}}}, 'controls': {{{controls}}}, 'actions': ACTIONS}}")
    build_at = out.index("def build(_rt):")
    split = split_build("\n".join(out[build_at + 1:]).split("\n"))
    if split is not None:  # a big program: see codegen.chunks
        parts, body = split
        out[build_at:] = [*parts, "def build(_rt):", *body]
    header = [f"# Generated by dataplane from {program.source}; each '# FILE:LINE:COL' names the P4 source."]
    return "\n".join(header + locator.header() + out) + "\n"


def _locals_class(block) -> str:
    names = [py_name(v.name) for v in block.variables]
    lines = [f"class L_{block.name}:", f"    __slots__ = {tuple(names)!r}", "    def __init__(self):"]
    for v, py in zip(block.variables, names):
        lines.append(f"        self.{py} = {default_value(v.type)}")
    if not block.variables:
        lines.append("        pass")
    return "\n".join(lines) + "\n"


def _extern_functions(program: P.Program) -> set[str]:
    names = set()
    roots: list = [a.body for a in program.actions.values()] + [f.body for f in program.functions.values()]
    for block in list(program.parsers.values()) + list(program.controls.values()):
        if isinstance(block, P.Control):
            roots.append(block.body)
            roots += [a.body for a in block.actions.values()]
        else:
            for st in block.states.values():
                roots += list(st.stmts)
    for root in roots:
        for n in walk(root):
            if isinstance(n, E.Call) and isinstance(n.target, E.PathExpr) and n.target.ref == "extern_function":
                if n.target.name not in ("verify", "static_assert"):
                    names.add(n.target.name)
    return names


class _FunctionGen(StmtGen):
    def callee(self, call):
        target = call.target
        if isinstance(target, E.PathExpr):
            return ("F_" if target.ref == "function" else "f_") + target.name
        return f"{self.expr(target.expr)}.{target.member}"

    def leading_args(self, call):
        target = call.target
        return [] if isinstance(target, E.PathExpr) and target.ref == "function" else ["_ctx"]


def _function(program: P.Program, fn: P.Function, out: list[str], packers: dict[str, str],
              locator: source_map.Locator) -> None:
    names = Names({})
    gen = _FunctionGen(program, names)
    gen.locator = locator
    gen.expr.packers = packers
    gen.out = out
    params = [names.fresh(p.name) for p in fn.params]
    gen.located(fn.span)
    out.append(f"    def F_{fn.name}({', '.join(params)}):{gen.at}")
    gen.indent = 2
    gen.emit("_ctx = None")
    outs = []
    for p, py in zip(fn.params, params):
        if p.direction in ("out", "inout") and is_scalar(p.type):
            outs.append(py)
            if p.direction == "out":
                gen.emit(f"{py} = {default_value(p.type)}")
    # Scalar out/inout values go back to the caller: (value, outs...) or, for void, like an action.
    gen.ret_outs = outs if not isinstance(fn.ret, T.Void) else []
    gen.returns = f"return ({', '.join(outs)},)" if len(outs) > 1 else (f"return {outs[0]}" if outs else "return")
    gen.block(fn.body.stmts)
    if outs and isinstance(fn.ret, T.Void):
        gen.emit(gen.returns)


__all__ = ["CompiledPipeline", "compile_pipeline", "generate", "runtime", "T"]
