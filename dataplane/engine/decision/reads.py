"""What a pipeline reads of a packet: the static half of the decision cache.

``analyze`` walks the IR of a pipeline's blocks (parser, controls, their actions and table keys)
and sorts every field of every header into one of three kinds:

* **key** fields: read anywhere (a condition, a table key, a hash input, an assignment's right
  side, a parser ``select``), or written by the program. Two packets that agree on these bits
  (and on the other inputs the program reads) take the same path through the program;
* **checksum** fields: the destination of a ``csum16`` checksum over exactly the other fields
  of its header, in order (the IPv4 idiom): ``verify_checksum`` in the verify block, whose
  outcome becomes part of the key, ``update_checksum`` in the compute block, which is redone on
  the packet's own bytes;
* **carried** fields: the rest, read by nothing but those checksums and the deparser's ``emit``:
  they leave as they came (an IPv4 identification, total length, ECN bits).

Anything the analysis does not follow makes the pipeline ineligible, with the reason: externs
that keep state or draw random numbers (registers, counters, meters, ``random``, digests),
clones, resubmits, recirculation, ``truncate``, ``log_msg``, asserts, lookahead, varbit headers,
header stacks and unions, parser value sets, a deparser that is not a straight list of
``emit``\\ s, reads of the time or the queue (timestamps, ``enq_qdepth``...), and tables whose
lookups have side effects (direct counters and meters, action selectors, idle timeouts).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from dataplane.ir import expr as E
from dataplane.ir import program as P
from dataplane.ir import stmt as S
from dataplane.ir import types as T
from dataplane.ir.node import children

__all__ = ["FieldUse", "analyze", "NotCacheable"]


class NotCacheable(Exception):
    """The pipeline does something the decision cache cannot replay (the message says what)."""


#: extern functions whose effect is a function of what they read (and that the cache replays)
PURE_FUNCTIONS = frozenset({"mark_to_drop", "hash", "verify_checksum", "update_checksum"})
HEADER_METHODS = frozenset({"isValid", "setValid", "setInvalid"})


@dataclass
class FieldUse:
    """The result of ``analyze``: how the pipeline uses each header field (see the module doc)."""

    headers: dict[str, P.HeaderLayout]           # member of the headers struct -> its layout
    key_fields: set[tuple[str, str]] = field(default_factory=set)      # (header, field)
    verify: list[tuple[str, str]] = field(default_factory=list)        # (header, checksum field) idioms
    update: list[tuple[str, str]] = field(default_factory=list)
    emits: list[str] = field(default_factory=list)                     # the deparser's emit order
    metadata_reads: set[str] = field(default_factory=set)              # standard metadata fields read

    def field_kind(self, header: str, name: str) -> str:
        """``key``, ``checksum`` or ``carried``."""
        if (header, name) in self.key_fields:
            return "key"
        if any(h == header and f == name for h, f in self.update):
            return "checksum"
        return "carried"


def analyze(program: P.Program, blocks: Iterable[tuple[str, P.Parser | P.Control]], *, headers_type: str,
            metadata_type: str, standard_type: str, forbidden_metadata: frozenset[str], verify_slot: str,
            update_slot: str, deparser_slot: str) -> FieldUse:
    """The field use of the pipeline made of ``blocks`` ((slot, block) in package order); raises
    ``NotCacheable`` if the cache cannot stand in for it."""
    return _Walk(program, headers_type, metadata_type, standard_type, forbidden_metadata, verify_slot,
                 update_slot, deparser_slot).run(blocks)


def _type_name(t: T.Type | None) -> str:
    t = T.strip_newtype(t) if t is not None else None
    return getattr(t, "name", "") or ""


class _Walk:
    def __init__(self, program: P.Program, headers_type: str, metadata_type: str, standard_type: str,
                 forbidden: frozenset[str], verify_slot: str, update_slot: str, deparser_slot: str):
        self.program = program
        self.forbidden = forbidden
        self.verify_slot, self.update_slot, self.deparser_slot = verify_slot, update_slot, deparser_slot
        self.types = {headers_type: "hdr", metadata_type: "meta", standard_type: "sm"}
        hs = T.strip_newtype(program.types.get(headers_type)) if headers_type in program.types else None
        if not isinstance(hs, T.Struct):
            raise NotCacheable(f"the headers type {headers_type!r} is not a struct")
        layouts: dict[str, P.HeaderLayout] = {}
        for f in hs.fields:
            ft = T.strip_newtype(f.type)
            if not isinstance(ft, T.Header):
                raise NotCacheable(f"headers member {f.name!r} is not a plain header (a stack, union or struct)")
            layout = program.headers.get(ft.name)
            if layout is None or any(fl.varbit or "." in fl.name for fl in layout.fields) or layout.width % 8:
                raise NotCacheable(f"header {ft.name!r} has a varbit or struct field or is not whole bytes")
            layouts[f.name] = layout
        self.use = FieldUse(layouts)
        self.roles: dict[str, str] = {}
        self.slot = ""
        self.actions: dict[str, P.Action] = {}

    # ---- blocks ----------------------------------------------------------------------------------------
    def run(self, blocks: Iterable[tuple[str, P.Parser | P.Control]]) -> FieldUse:
        for slot, block in blocks:
            self.slot = slot
            self.roles = {}
            for p in block.params:
                role = self.types.get(_type_name(p.type))
                if role is None and _type_name(p.type) in ("packet_in", "packet_out"):
                    role = "packet"
                if role is not None:
                    self.roles[p.name] = role
            if block.instances:
                names = ", ".join(i.name for i in block.instances)
                raise NotCacheable(f"{block.name} declares extern instances ({names})")
            for v in block.variables:
                self.read(v.init)
            if isinstance(block, P.Parser):
                self.parser(block)
            elif slot == self.deparser_slot:
                self.deparser(block)
            else:
                self.control(block)
        for fn in self.program.functions.values():    # called with fields as arguments; bodies for externs
            self.roles = {}
            self.stmt(fn.body)
        return self.use

    def parser(self, parser: P.Parser) -> None:
        for state in parser.states.values():
            for s in state.stmts:
                self.stmt(s)
            for e in state.select:
                self.read(e)
            for case in state.cases:
                for k in case.keysets:
                    self.read(k)

    def control(self, control: P.Control) -> None:
        self.actions = control.actions
        roles = self.roles
        for action in control.actions.values():
            # an action's own parameters hide the control's of the same name
            self.roles = {k: v for k, v in roles.items() if all(p.name != k for p in action.params)}
            self.stmt(action.body)
        self.roles = roles
        for table in control.tables.values():
            if table.implementation or table.counters or table.meters:
                raise NotCacheable(f"table {table.name} has an action profile, selector, direct counter or meter")
            for name, value in table.properties:
                if name == "support_timeout" and isinstance(value, E.BoolLiteral) and value.value:
                    raise NotCacheable(f"table {table.name} keeps idle timeouts")
            for k in table.keys:
                self.read(k.expr)
        self.stmt(control.body)

    def deparser(self, control: P.Control) -> None:
        for s in control.body.stmts:
            call = s.call if isinstance(s, S.CallStmt) else None
            target = call.target if call is not None else None
            if not (isinstance(target, E.Member) and target.member == "emit" and len(call.args) == 1
                    and self.root(target.expr) == "packet"):
                raise NotCacheable("the deparser is not a straight list of emit() calls")
            path = self.path(call.args[0].value)
            if path is None or path[0] != "hdr" or len(path) != 2:
                raise NotCacheable("the deparser emits something other than a header of the headers struct")
            self.use.emits.append(path[1])

    # ---- statements -----------------------------------------------------------------------------------
    def stmt(self, s: S.Stmt | None) -> None:
        if s is None:
            return
        if isinstance(s, S.BlockStmt):
            for x in s.stmts:
                self.stmt(x)
        elif isinstance(s, S.Assign):
            self.write(s.lhs)
            self.read(s.rhs)
            if s.op:
                self.read(s.lhs)
        elif isinstance(s, S.CallStmt):
            self.call(s.call)
        elif isinstance(s, S.If):
            self.read(s.cond)
            self.stmt(s.then)
            self.stmt(s.otherwise)
        elif isinstance(s, S.Switch):
            self.read(s.expr)
            for case in s.cases:
                self.stmt(case.body)
        elif isinstance(s, S.VarDecl):
            self.read(s.init)
        elif isinstance(s, S.ConstDecl):
            self.read(s.value)
        elif isinstance(s, S.Return):
            self.read(s.value)
        elif isinstance(s, S.For):
            for x in (*s.init, *s.updates, s.body):
                self.stmt(x)
            self.read(s.cond)
        elif isinstance(s, S.ForIn):
            self.read(s.collection)
            self.stmt(s.body)
        elif not isinstance(s, (S.Exit, S.Empty, S.Break, S.Continue)):
            raise NotCacheable(f"statement {type(s).__name__} is not followed")

    # ---- expressions ---------------------------------------------------------------------------------
    def root(self, e: E.Expr | None) -> str | None:
        """The role (hdr, meta, sm, packet) of a block parameter ``e`` names, else None."""
        if isinstance(e, E.PathExpr) and e.ref == "param":
            return self.roles.get(e.name)
        return None

    def path(self, e: E.Expr | None) -> tuple[str, ...] | None:
        """``("hdr", "ipv4", "ttl")`` for ``hdr.ipv4.ttl`` rooted at a role parameter, else None."""
        names: list[str] = []
        while isinstance(e, E.Member):
            names.append(e.member)
            e = e.expr
        role = self.root(e)
        if role is None:
            return None
        return (role, *reversed(names))

    def read(self, e: E.Expr | None) -> None:
        if e is None:
            return
        if isinstance(e, E.Call):
            self.call(e)
            return
        if isinstance(e, (E.Member, E.PathExpr)):
            path = self.path(e)
            if path is not None:
                self.use_path(path, write=False)
                return
            if isinstance(e, E.PathExpr):
                if e.ref == "value_set":
                    raise NotCacheable("the parser selects on a value set")
                return
        if isinstance(e, E.Index):
            base = e.expr
            while isinstance(base, E.Member):
                base = base.expr
            if self.root(base) is not None:
                raise NotCacheable("a header stack or indexed field of the packet")
        for c in children(e):
            if isinstance(c, E.Expr):
                self.read(c)
            elif isinstance(c, E.Argument):
                self.read(c.value)
            elif isinstance(c, E.NamedField):
                self.read(c.value)

    def write(self, e: E.Expr | None) -> None:
        if isinstance(e, (E.Slice, E.PlusSlice)):
            self.read(e)                 # a partial write keeps the other bits: read them
            self.write(e.expr)
            return
        if isinstance(e, E.Index):
            self.read(e)
            return
        path = self.path(e)
        if path is not None:
            self.use_path(path, write=True)
            return

    def use_path(self, path: tuple[str, ...], write: bool) -> None:
        role = path[0]
        if role == "hdr":
            layouts = self.use.headers
            if len(path) > 1 and path[1] not in layouts:
                raise NotCacheable(f"hdr.{path[1]} is not a header of the headers struct")
            if len(path) == 1:
                for h, layout in layouts.items():
                    self.use.key_fields.update((h, f.name) for f in layout.fields)
            elif len(path) == 2:
                layout = layouts[path[1]]
                self.use.key_fields.update((path[1], f.name) for f in layout.fields)
            else:
                self.use.key_fields.add((path[1], ".".join(path[2:])))
        elif role == "sm":
            if len(path) == 1:
                if not write:
                    raise NotCacheable("standard metadata is passed whole")
                return
            if not write:
                name = path[1]
                if name in self.forbidden:
                    raise NotCacheable(f"the program reads standard_metadata.{name} (time or queue state)")
                self.use.metadata_reads.add(name)
        elif role == "packet":
            raise NotCacheable("the packet is used other than by extract and emit")

    # ---- calls -------------------------------------------------------------------------------------------
    def call(self, call: E.Call) -> None:
        target = call.target
        args = [a.value for a in call.args]
        if isinstance(target, E.PathExpr):
            if target.ref == "action" or target.name in self.actions:
                for a in args:
                    self.read(a)
                return
            if target.ref == "function":
                for a in args:
                    self.read(a)
                    self.write(a)
                return
            if target.ref == "extern_function":
                self.extern_function(target.name, args)
                return
            raise NotCacheable(f"call of {target.name} ({target.ref or 'unknown'})")
        if isinstance(target, E.Member):
            obj = target.expr
            if isinstance(obj, E.PathExpr) and obj.ref == "table" and target.member == "apply":
                return
            role = self.root(obj)
            if role == "packet":
                if target.member == "extract" and len(args) == 1:
                    path = self.path(args[0])
                    if path is None or path[0] != "hdr" or len(path) != 2:
                        raise NotCacheable("extract into something other than a header of the headers struct")
                    return
                raise NotCacheable(f"packet.{target.member}() (lookahead, advance, varbit extract or length)")
            path = self.path(obj)
            if path is not None and path[0] == "hdr" and len(path) == 2 and target.member in HEADER_METHODS:
                return
            if isinstance(obj, E.Call):      # t.apply().hit and the like
                self.call(obj)
                return
            raise NotCacheable(f"method {target.member}() of {getattr(obj, 'name', type(obj).__name__)}")
        raise NotCacheable(f"call of {type(target).__name__}")

    def extern_function(self, name: str, args: list) -> None:
        if name not in PURE_FUNCTIONS:
            raise NotCacheable(f"extern {name}() keeps state, draws random numbers or changes the packet's fate")
        if name == "mark_to_drop":
            return
        if name == "hash":
            result, algo, *rest = args
            if isinstance(algo, E.TypeMember) and algo.member == "random":
                raise NotCacheable("hash() with HashAlgorithm.random")
            self.write(result)
            for a in rest:
                self.read(a)
            return
        cond, data, checksum, algo = args[:4]
        header = self.idiom(cond, data, checksum, algo)
        if name == "verify_checksum":
            if header is not None and self.slot == self.verify_slot:
                self.use.verify.append(header)
                return
            for a in args:
                self.read(a)
            return
        if header is not None and self.slot == self.update_slot:
            self.use.update.append(header)
            return
        self.read(cond)
        self.read(data)
        self.write(checksum)

    def idiom(self, cond, data, checksum, algo) -> tuple[str, str] | None:
        """(header, checksum field) if the call is csum16 over all of one header's other fields in
        order, on the condition that header is valid; else None."""
        if not (isinstance(algo, E.TypeMember) and algo.member == "csum16"):
            return None
        if not (isinstance(cond, E.Call) and isinstance(cond.target, E.Member) and cond.target.member == "isValid"):
            return None
        hpath = self.path(cond.target.expr)
        cpath = self.path(checksum)
        if hpath is None or cpath is None or hpath[0] != "hdr" or len(hpath) != 2 or cpath[:2] != hpath \
                or len(cpath) != 3 or not isinstance(data, E.ListExpr):
            return None
        layout = self.use.headers[hpath[1]]
        cfield = next((f for f in layout.fields if f.name == cpath[2]), None)
        if cfield is None or cfield.width != 16 or cfield.offset % 16 or layout.width % 16:
            return None
        want = [(*hpath, f.name) for f in layout.fields if f is not cfield]
        got = [self.path(x) for x in data.elements]
        return (hpath[1], cfield.name) if got == want else None
