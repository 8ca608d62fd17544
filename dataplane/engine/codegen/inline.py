"""v1model extern calls the generator writes out as Python arithmetic instead of calls:
``verify_checksum``/``update_checksum`` with csum16 over one header, and ``hash`` over a
field list of fixed-width fields. Each falls back to the generic call (returns False) when
the call is not of the shape it handles, so the externs in ``extern_functions`` stay the
reference the tests compare against.
"""
from __future__ import annotations

from dataplane.engine.codegen.expr import is_scalar
from dataplane.ir import expr as E
from dataplane.ir import types as T
from dataplane.ir.node import walk


def register_bindings(program, inst, name: str) -> list[str]:
    """``build``'s lines binding what an inlined v1model ``register<bit<W>>`` access reads: the
    instance's cells (an array or list: ``externs.register_cells``), size and width mask
    (``InlineExterns.inline_register``). The cells are kept, never replaced
    (``externs.Register.reset`` clears them in place); they are bound as ``cells``, which may
    still be empty (``Register.warm`` fills them in place before the pipeline first runs)."""
    if not _fast_register(program, inst.extern, inst.type_args):
        return []
    return [f"    xv_{name[2:]} = {name}.cells", f"    xn_{name[2:]} = {name}.size",
            f"    xm_{name[2:]} = (1 << {name}.width) - 1"]


def _fast_register(program, extern: str, type_args) -> bool:
    return (program.architecture == "v1model" and extern == "register" and len(type_args) == 1
            and isinstance(T.strip_newtype(type_args[0]), T.Bits))


class InlineExterns:
    """Mixed into ``StmtGen``: uses its ``emit``, ``temp``, ``store``, ``expr`` and ``indent``."""

    def inline_csum16(self, call: E.Call) -> bool:
        """Emit v1model ``verify_checksum``/``update_checksum`` with csum16 over one header as
        integer arithmetic (the RFC 1071 sum is the packed number modulo 0xFFFF, as in
        ``hashes.csum16``), skipping the bytes round trip and the extern call. False if the
        call is not of that shape; the generic call then handles it."""
        target = call.target
        if not (isinstance(target, E.PathExpr) and target.ref == "extern_function"
                and target.name in ("verify_checksum", "update_checksum") and len(call.args) == 4):
            return False
        cond, data, ck, algo = (a.value for a in call.args)
        if not (isinstance(algo, E.TypeMember) and algo.member == "csum16"
                and getattr(T.strip_newtype(algo.type), "name", None) == "HashAlgorithm"):
            return False
        if isinstance(data, E.ListExpr) or not is_scalar(data.type):
            packed = self.expr.csum16_sum(data)
        else:
            packed = None
        if packed is None:
            return False
        valid, value = packed
        n = self.temp()
        tested = {self.expr(cond)}
        total = f"(0xFFFF if not {n} else ({n} % 0xFFFF or 0xFFFF) ^ 0xFFFF)"
        if target.name == "verify_checksum":
            ck_valid = f"{self.expr(ck.expr)}._valid" if isinstance(ck, E.Member) else "True"
            tests = [c for c in dict.fromkeys([self.expr(cond), ck_valid]) if c != "True"]
            tested.add(ck_valid)
            self.emit(f"if {' and '.join(tests) or 'True'}:")
            self.indent += 1
            # The data's own validity test is skipped when the condition already made it.
            self.emit(f"{n} = {value if valid in tested or valid == 'True' else f'({value} if {valid} else 0)'}")
            self.emit(f"if {total} != {self.expr(ck)}:")
            self.emit("    _ctx.sm.checksum_error = 1")
        else:
            self.emit(f"if {self.expr(cond)}:")
            self.indent += 1
            self.emit(f"{n} = {value if valid in tested or valid == 'True' else f'({value} if {valid} else 0)'}")
            self.store(ck, f"({total} & {(1 << _width(ck.type)) - 1})")
        self.indent -= 1
        return True

    def inline_hash(self, call: E.Call) -> bool:
        """Emit v1model ``hash(result, algo, base, data, max)`` inline: the field list packed
        as one integer (when every header in it is valid; otherwise the (valid, value, width)
        triples go to ``pack_fields`` as in the extern), the algorithm called directly and
        ``base + h % max`` computed as ``hashes.hash_result`` does. False when the call is not
        of that shape (other architectures, arguments that call something, varbit fields)."""
        target = call.target
        if not (isinstance(target, E.PathExpr) and target.ref == "extern_function" and target.name == "hash"
                and len(call.args) == 5 and self.program.architecture == "v1model"):
            return False
        result, algo, base, data, max_value = (a.value for a in call.args)
        if isinstance(result, E.DontCareExpr) or not is_scalar(result.type):
            return False
        if any(isinstance(n, E.Call) for a in (algo, base, data, max_value) for n in walk(a)):
            return False
        packed = self.expr.packed_int_mixed(data)
        if packed is None:
            return False
        valids, value, nbytes, triples, struct_bytes = packed
        as_bytes = f"{value}.to_bytes({nbytes}, 'big')"
        if valids:
            as_bytes = f"({as_bytes} if {' and '.join(valids)} else pack_fields({triples}))"
        if struct_bytes is not None:
            # One struct.pack of the byte-aligned units; a value wider than its field (which
            # generated code never stores) makes it fail, and the integer form then runs.
            data_src = self.temp()
            self.emit("try:")
            self.emit(f"    {data_src} = {struct_bytes}" if not valids else
                      f"    {data_src} = ({struct_bytes} if {' and '.join(valids)} else pack_fields({triples}))")
            self.emit("except (_StructError, OverflowError):")
            self.emit(f"    {data_src} = {as_bytes}")
            as_bytes = data_src
        m64 = (1 << 64) - 1
        width = _width(result.type)
        h = self.temp()
        self.emit(f"{h} = f_hash_algorithms[{self.expr(algo)}]({as_bytes})")
        if isinstance(base, E.Constant):
            b = base.value & m64
            total = f"{b} + " if b else ""
        else:
            total = f"({self.expr(base)} & {m64}) + "
        if isinstance(max_value, E.Constant):
            modulo = str((max_value.value & m64) or 1)
        else:
            modulo = f"(({self.expr(max_value)} & {m64}) or 1)"
        value = f"({total}({h} & {m64}) % {modulo})"
        if total:
            value = f"({value} & {m64})"
        self.store(result, f"({value} & {(1 << width) - 1})" if width < 64 or total else value)
        return True


    def inline_internet_checksum(self, call: E.Call) -> str | None:
        """PSA ``InternetChecksum`` methods as arithmetic on the instance's ``state`` (see
        ``psa_externs.PsaInternetChecksum``, which the generic call runs): ``clear``, ``add``,
        ``get``, ``get_state``, ``set_state``. None for anything else (``subtract``, data with
        a varbit field): the generic call then handles it."""
        target = call.target
        ck = self.expr(target.expr)
        member = target.member
        if member == "clear":
            return f"{ck}.state = 0"
        if member == "get":
            return f"(~{ck}.state & 0xFFFF)"
        if member == "get_state":
            return f"{ck}.state"
        if member == "set_state":
            return f"{ck}.state = ({self.expr(call.args[0].value)}) & 0xFFFF"
        if member == "add":
            total = self.expr.ones_sum(call.args[0].value)
            if total is None:
                return None
            t = self.temp()
            # The one's-complement sum folded at once: 0 only when state and data are both 0.
            return f"{t} = {ck}.state + {total}; {ck}.state = {t} % 0xFFFF or (0xFFFF if {t} else 0)"
        return None

    def inline_register(self, call: E.Call) -> bool:
        """Emit a v1model ``register<bit<W>>``'s ``read``/``write`` as a list access guarded by
        the index check ``externs.Register`` makes (out of range: a read leaves the destination
        as it was, as BMv2 does, and a write does nothing), skipping the method call: an
        aggregating program (allreduce.p4) makes 64 of them a packet. False when not that shape."""
        target = call.target
        if not (isinstance(target, E.Member) and target.member in ("read", "write")
                and _fast_register(self.program, target.expr.type.name, target.expr.type.type_args)):
            return False
        name = self.expr(target.expr)
        if not name.startswith("x_"):
            return False
        values, size, mask = (f"{p}_{name[2:]}" for p in ("xv", "xn", "xm"))
        if target.member == "read":
            dst, index = call.args[0].value, call.args[1].value
            if isinstance(dst, E.DontCareExpr):
                return True
            i = self._simple(self.expr(index))
            self.store(dst, f"({values}[{i}] if 0 <= {i} < {size} else {self.expr(dst)})")
            return True
        i = self._simple(self.expr(call.args[0].value))
        value = self.expr(call.args[1].value)
        self.emit(f"if 0 <= {i} < {size}: {values}[{i}] = ({value}) & {mask}")
        return True

    def _simple(self, src: str) -> str:
        """``src`` itself if it is a name, else a temporary holding it (it is used twice)."""
        if src.isidentifier():
            return src
        tmp = self.temp()
        self.emit(f"{tmp} = {src}")
        return tmp


def _width(t: T.Type) -> int:
    t = T.strip_newtype(t)
    if isinstance(t, T.Enum) and t.underlying is not None:
        return t.underlying.width
    try:
        return t.bit_width()
    except TypeError:
        return 32
