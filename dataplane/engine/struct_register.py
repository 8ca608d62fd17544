"""Registers whose cells hold a struct: v1model's ``register<S>`` and PSA's ``Register<S, I>``.

An extension: p4c's BMv2 back end refuses registers of a struct type ("Only registers with bit
or int types are currently supported"), but its front end accepts them (p4c's issue907), and a
struct of counters in one cell is a natural way to write per-flow state. Cells keep the
struct's field values as a tuple in declaration order (a nested struct as a nested tuple), so a
cell never shares an object with a packet. The control plane reads a cell as a dict of field
values (nested structs as nested dicts) and writes one from such a dict, with every field, or
from a tuple/list in declaration order.
"""
from __future__ import annotations

from typing import Any, Callable

from dataplane.engine.externs import ExternError, _check_index
from dataplane.engine.structgen import py_name
from dataplane.errors import DataplaneError
from dataplane.ir import types as T

# A struct's layout: (field name, attribute name, width of a scalar or the nested layout).
Layout = tuple


def struct_layout(t: T.Type, where: str) -> Layout:
    """The layout of a struct a register can hold; a header, stack, varbit or union inside is refused."""
    t = T.strip_newtype(t)
    out = []
    for f in t.fields:
        ft = T.strip_newtype(f.type)
        if isinstance(ft, T.Struct):
            out.append((f.name, py_name(f.name), struct_layout(ft, where)))
        elif isinstance(ft, (T.Bits, T.Bool, T.Enum)):
            width = 1 if isinstance(ft, T.Bool) else (ft.width if isinstance(ft, T.Bits) else
                                                       (ft.underlying.width if ft.underlying else 32))
            out.append((f.name, py_name(f.name), (width, isinstance(ft, T.Bits) and ft.signed, isinstance(ft, T.Bool))))
        else:
            raise DataplaneError(f"unsupported: {where} holds struct '{t.name}', whose field '{f.name}' is a "
                                 f"{ft}: a register's struct may hold bit<W>, int<W>, bool, enums and structs of them")
    return tuple(out)


def _zero(layout: Layout) -> tuple:
    return tuple(_zero(spec) if isinstance(spec[0], tuple) else (False if spec[2] else 0) for _, _, spec in layout)


def _to_tuple(obj: Any, layout: Layout) -> tuple:
    return tuple(_to_tuple(getattr(obj, attr), spec) if isinstance(spec[0], tuple) else getattr(obj, attr)
                 for _, attr, spec in layout)


def _fill(obj: Any, layout: Layout, values: tuple) -> Any:
    for (_, attr, spec), v in zip(layout, values):
        if isinstance(spec[0], tuple):
            _fill(getattr(obj, attr), spec, v)
        else:
            setattr(obj, attr, v)
    return obj


class StructRegister:
    """``size`` cells of struct type ``t``; the engine reads and writes struct objects."""

    cp_kind = "register"

    def __init__(self, name: str, size: int, t: T.Type):
        self.name, self.size = name, size
        self.type_name = T.strip_newtype(t).name
        self.layout = struct_layout(t, f"register '{name}'")
        self.zero = _zero(self.layout)
        self.values = [self.zero] * size
        self.new_struct: Callable[[], Any] | None = None

    def bind_struct_classes(self, struct_class: Callable[[str], type]) -> None:
        """Called by the device once the pipeline's classes exist: the class cells are read into."""
        self.new_struct = struct_class(self.type_name)

    # ---- the engine ----------------------------------------------------------------------------------
    def read(self, ctx, index: int, width: int = 0) -> Any:
        """PSA's ``read(index)``: a new struct (all zero out of range, as a bit<W> register's 0)."""
        return _fill(self.new_struct(), self.layout, self.values[index] if 0 <= index < self.size else self.zero)

    def read_keep(self, ctx, index: int, current: Any) -> Any:
        """v1model's ``read(out S, index)``: fills the destination in place; out of range leaves it (BMv2)."""
        if 0 <= index < self.size:
            _fill(current, self.layout, self.values[index])
        return current

    def write(self, ctx, index: int, value: Any) -> None:
        if 0 <= index < self.size:
            self.values[index] = _to_tuple(value, self.layout)

    # ---- the control plane ---------------------------------------------------------------------------
    def cp_read(self, index: int) -> dict[str, Any]:
        """The cell as ``{field: value}``, a nested struct as a nested dict."""
        _check_index("register", self.name, index, self.size)
        return _as_dict(self.layout, self.values[index])

    def cp_write(self, index: int, value: Any) -> None:
        """Set a cell from a dict naming every field, or a tuple/list in declaration order."""
        _check_index("register", self.name, index, self.size)
        self.values[index] = self._checked(self.layout, value, self.type_name)

    def _checked(self, layout: Layout, value: Any, type_name: str) -> tuple:
        names = [n for n, _, _ in layout]
        if isinstance(value, dict):
            extra, missing = set(value) - set(names), [n for n in names if n not in value]
            if extra or missing:
                raise ExternError(f"register '{self.name}': a value of struct '{type_name}' needs exactly the "
                                  f"fields {', '.join(names)}" + (f"; unknown {', '.join(sorted(extra))}" if extra else "")
                                  + (f"; missing {', '.join(missing)}" if missing else ""))
            value = [value[n] for n in names]
        elif not isinstance(value, (tuple, list)) or len(value) != len(names):
            raise ExternError(f"register '{self.name}' holds struct '{type_name}': give a dict of its fields "
                              f"({', '.join(names)}) or a tuple of {len(names)} values in that order")
        out = []
        for (fname, _, spec), v in zip(layout, value):
            if isinstance(spec[0], tuple):
                out.append(self._checked(spec, v, f"{type_name}.{fname}"))
                continue
            width, signed, is_bool = spec
            if is_bool:
                if v not in (0, 1, True, False):
                    raise ExternError(f"register '{self.name}': field '{fname}' is a bool, not {v!r}")
                out.append(bool(v))
                continue
            lo, hi = (-(1 << (width - 1)), 1 << (width - 1)) if signed else (0, 1 << width)
            if not isinstance(v, int) or isinstance(v, bool) or not lo <= v < hi:
                raise ExternError(f"register '{self.name}': field '{fname}' value {v!r} does not fit in "
                                  f"{'int' if signed else 'bit'}<{width}>")
            out.append(v)
        return tuple(out)

    def reset(self) -> None:
        self.values = [self.zero] * self.size


def _as_dict(layout: Layout, values: tuple) -> dict[str, Any]:
    return {n: _as_dict(spec, v) if isinstance(spec[0], tuple) else v for (n, _, spec), v in zip(layout, values)}
