"""What every architecture's device shares: its program, name, random source, clock and outboxes."""
from __future__ import annotations

import random

from dataplane.engine.backend import compile_pipeline
from dataplane.errors import DataplaneError
from dataplane.ir import program as P

_INCLUDES = {"v1model": "v1model.p4", "psa": "psa.p4", "pna": "pna.p4", "ebpf": "ebpf_model.p4",
             "xdp": "xdp_model.p4", "ubpf": "ubpf_model.p4"}


class ArchitectureError(DataplaneError):
    """The program does not fit the architecture as this emulator runs it."""


class Device:
    """Base of ``V1ModelSwitch``, ``PnaNic``, ``PsaSwitch`` and the eBPF family; the network layer
    sets ``now_us``."""

    architecture = ""
    parser_reject_is_error = False   # eBPF targets: a parse that ends in reject is the packet's fate
    port_limit = 512   # ports are 0 .. port_limit - 1 (BMv2's 9-bit ports; PSA's are 32 bits)
    # The blocks the architecture's package takes, each with its number of parameters (the
    # bundled include's declaration): a package of the same name that a program declares itself
    # (p4c's front-end tests do) has other slots and cannot run here.
    package_blocks: tuple[tuple[str, int], ...] = ()

    def __init__(self, program: P.Program, name: str, seed: int, extern_functions: dict | None = None):
        if program.architecture != self.architecture:
            raise ArchitectureError(f"program uses {program.architecture or 'no'} architecture, "
                                    f"not {self.architecture}")
        self.program = program
        self.name = name
        # Extern functions the program declares that the target provides (as BMv2 loads a module
        # with --load-modules): name -> callable in the generated code's convention, see Switch.
        self.target_functions = dict(extern_functions or {})
        self.rng = random.Random(seed)
        self.now_us = 0
        self.digests: list[tuple[int, tuple]] = []
        self.log_messages: list[str] = []
        self.layouts = program.headers
        self._check_package()

    def _check_package(self) -> None:
        """Refuse a ``main`` whose blocks are not those of the architecture's own package."""
        pkg = self.program.package
        slots = dict(pkg.blocks) if pkg is not None else {}
        wrong = []
        for slot, nparams in self.package_blocks:
            block = self.program.parsers.get(slots.get(slot)) or self.program.controls.get(slots.get(slot))
            if block is None:
                wrong.append(f"no block '{slot}'")
            elif len(block.params) < nparams:
                wrong.append(f"'{slot}' ({block.name}) has {len(block.params)} parameter(s), not {nparams}")
        if wrong:
            name = pkg.type_name if pkg is not None else "package"
            expected = ", ".join(slot for slot, _ in self.package_blocks)
            include = _INCLUDES.get(self.architecture, "")
            raise ArchitectureError(f"{self.program.source}: 'main' is a '{name}' that does not fit the "
                                    f"{name}({expected}) of {include}: {'; '.join(wrong)}; this emulator runs "
                                    f"the package as the architecture declares it (#include <{include}>)")

    def _load(self) -> None:
        """Generate the pipeline and give it this device's externs, tables and functions.

        Subclasses provide ``_make_instances``, ``_make_tables``, ``_bind_functions`` and
        ``_bind_blocks`` (which block fills which slot of the architecture's package).
        """
        where = _value_array(self.program)
        if where is not None:
            raise ArchitectureError(f"unsupported: an array of non-header values ({where}); the engine runs "
                                    "header stacks only")
        self.pipeline = compile_pipeline(self.program, reject_is_error=self.parser_reject_is_error)
        self.instances = self._make_instances()
        for inst in self.instances.values():   # externs that make the program's structs (register<S>)
            bind = getattr(inst, "bind_struct_classes", None)
            if bind is not None:
                bind(self.pipeline.struct_class)
        self.tables = self._make_tables()
        self.functions = {**self.target_functions, **self._bind_functions()}
        missing = sorted(self.pipeline.extern_functions() - set(self.functions))
        if missing:
            # p4c's BMv2 accepts such a program only on a target built with the function.
            raise ArchitectureError(f"{self.program.source}: extern function(s) {', '.join(map(repr, missing))} "
                                    f"have no implementation in the {self.architecture} architecture")
        built = self.pipeline.instantiate(self)
        self.actions = built["actions"]
        for table in self.tables.values():
            table.bind(self.actions, self.program)
            table.install_entries(self.program)
        self.blocks = self._bind_blocks(built)


# The last program checked and where it has a value array: a fabric's switches share one
# program, and walking its IR once a switch was most of building one (5.8 of 6.5 s for a k=16
# allreduce fat-tree's 320 switches). One entry, as backend._LAST, so no program is kept alive
# past the next.
_LAST_CHECKED: tuple = (None, None)


def _value_array(program: P.Program) -> str | None:
    """Where the program has an array of non-header elements (``bit<8>[16] arr``, p4c's arrays
    of 2025), which the front end takes and the engine does not run; None if nowhere."""
    global _LAST_CHECKED
    if _LAST_CHECKED[0] is program:
        return _LAST_CHECKED[1]
    where = _find_value_array(program)
    _LAST_CHECKED = (program, where)
    return where


def _find_value_array(program: P.Program) -> str | None:
    from dataplane.ir import types as T
    from dataplane.ir.node import walk

    def is_value_array(t) -> bool:
        return isinstance(t, T.Stack) and not isinstance(t.element, (T.Header, T.HeaderUnion))

    for t in program.types.values():
        if isinstance(t, T.StructLike):
            for f in t.fields:
                if is_value_array(T.strip_newtype(f.type)):
                    return f"field '{f.name}' of {t.kind} '{t.name}'"
    for block in list(program.parsers.values()) + list(program.controls.values()):
        for n in walk(block):
            if is_value_array(getattr(n, "type", None)):
                return f"in '{block.name}'"
    return None
