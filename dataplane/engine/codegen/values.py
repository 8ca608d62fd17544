"""How generated code holds P4 values: ints wrapped to their width, objects for headers and structs."""
from __future__ import annotations

from dataplane.ir import types as T


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
