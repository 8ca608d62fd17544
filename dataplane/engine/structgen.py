"""Generate one slotted Python class per header, header_union and struct type.

Header objects hold one int per field (bool fields as Python bools) and ``_valid``;
structs hold nested objects; stacks are ``runtime.HeaderStack``. Varbit fields keep
their current width in ``<field>__w``. Generated once per program.
"""
from __future__ import annotations

import keyword

from dataplane.ir import types as T


def py_name(name: str) -> str:
    """A P4 name as a Python identifier (P4 allows names that are Python keywords; names the
    inliner makes, ``c1.x``, have dots, written ``__``)."""
    if "." in name:
        return name.replace(".", "__")
    return name + "_" if keyword.iskeyword(name) or name in ("None", "True", "False") else name


def field_attr(path: str) -> str:
    """A header layout field's name (``outer.inner`` inside a struct field) as a Python attribute path."""
    return ".".join(py_name(part) for part in path.split("."))


def class_name(type_name: str) -> str:
    return "T_" + type_name


def default_value(t: T.Type) -> str:
    """Python source for a fresh value of ``t`` (BMv2 zeroes metadata and locals)."""
    t = T.strip_newtype(t)
    if isinstance(t, T.Bool):
        return "False"
    if isinstance(t, T.StructLike):
        return f"{class_name(t.name)}()"
    if isinstance(t, T.Stack):
        return f"HeaderStack({class_name(t.element.name)}, {t.size})"
    if isinstance(t, T.Tuple):
        return "(" + ", ".join(default_value(e) for e in t.elements) + ",)"
    return "0"


def _is_object(t: T.Type) -> bool:
    return isinstance(T.strip_newtype(t), (T.StructLike, T.Stack))


def struct_classes(types: dict[str, T.Type]) -> str:
    """Source defining a class for every struct-like type in ``types``."""
    out = []
    for name, t in types.items():
        if isinstance(t, T.StructLike) and t.name == name:
            out.append(_class_source(t))
    return "\n\n".join(out)


def _class_source(t: T.StructLike) -> str:
    fields = [py_name(f.name) for f in t.fields]
    varbits = [py_name(f.name) + "__w" for f in t.fields if isinstance(T.strip_newtype(f.type), T.VarBits)]
    is_header = isinstance(t, T.Header)
    slots = (["_valid"] if is_header else []) + fields + varbits
    lines = [f"class {class_name(t.name)}:", f"    __slots__ = {tuple(slots)!r}", f"    p4_name = {t.name!r}",
             f"    p4_kind = {t.kind!r}", "", "    def __init__(self):"]
    if is_header:
        lines.append("        self._valid = False")
    for f, pf in zip(t.fields, fields):
        lines.append(f"        self.{pf} = {default_value(f.type)}")
    for vb in varbits:
        lines.append(f"        self.{vb} = 0")
    if len(lines) == 6:
        lines.append("        pass")
    # copy_from: assignment of whole headers/structs copies values and validity.
    lines += ["", "    def copy_from(self, o):"]
    if is_header:
        lines.append("        self._valid = o._valid")
    for f, pf in zip(t.fields, fields):
        if _is_object(f.type):
            lines.append(f"        self.{pf}.copy_from(o.{pf})")
        else:
            lines.append(f"        self.{pf} = o.{pf}")
    for vb in varbits:
        lines.append(f"        self.{vb} = o.{vb}")
    if len(lines) == lines.index("    def copy_from(self, o):") + 1:
        lines.append("        pass")
    if is_header:
        # setValid on an invalid header zeroes its fields first (BMv2 add_header).
        lines += ["", "    def set_valid(self):", "        if not self._valid:"]
        for f, pf in zip(t.fields, fields):
            lines.append(f"            self.{pf} = {default_value(f.type)}")
        lines.append("            self._valid = True")
    lines += _value_methods(t, fields)
    if isinstance(t, T.HeaderUnion):
        members = " or ".join(f"self.{pf}._valid" for pf in fields) or "False"
        lines += ["", "    @property", "    def _valid(self):", f"        return {members}"]
    # Equality as P4 defines it: both invalid, or both valid with equal fields.
    lines += ["", "    def __eq__(self, o):", "        if type(o) is not type(self):", "            return False"]
    if is_header:
        lines += ["        if not self._valid or not o._valid:", "            return self._valid == o._valid"]
    cmp = " and ".join(f"self.{pf} == o.{pf}" for pf in fields) or "True"
    lines += [f"        return {cmp}", "", "    __hash__ = None", "", "    def __repr__(self):"]
    body = ", ".join(f"{f}={{self.{pf}!r}}" for f, pf in zip((f.name for f in t.fields), fields))
    valid = "{'' if self._valid else 'invalid '}" if (is_header or isinstance(t, T.HeaderUnion)) else ""
    lines.append(f"        return f\"{valid}{t.name}({body})\"")
    return "\n".join(lines)



def _value_methods(t: T.StructLike, fields: list[str]) -> list[str]:
    """``_make`` (a value from a list or struct expression), ``_clone`` (a copy, for copy-in) and
    ``_invalidate`` (every header inside made invalid: a fresh ``out`` argument, ``{#}``)."""
    cls = class_name(t.name)
    is_header = isinstance(t, T.Header)
    params = [f"a{i}" for i in range(len(fields))]
    lines = ["", "    @staticmethod", f"    def _make({', '.join(params)}):", f"        o = {cls}()"]
    for f, pf, a in zip(t.fields, fields, params):
        lines.append(f"        o.{pf}.copy_from({a})" if _is_object(f.type) else f"        o.{pf} = {a}")
    if is_header:
        lines.append("        o._valid = True")
    lines.append("        return o")
    lines += ["", "    def _clone(self):", f"        o = {cls}()", "        o.copy_from(self)", "        return o"]
    lines += ["", "    def _invalidate(self):"]
    if is_header:
        lines.append("        self._valid = False")
    else:
        for f, pf in zip(t.fields, fields):
            if _is_object(f.type):
                lines.append(f"        self.{pf}._invalidate()")
    if lines[-1] == "    def _invalidate(self):":
        lines.append("        pass")
    return lines
