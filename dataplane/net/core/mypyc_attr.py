"""``mypyc_attr``, the class options of the compiled build (``dataplane.compiled``), or a no-op.

mypyc reads the decorator (from mypy_extensions, installed with mypy) when it compiles; an
install that runs the sources, or a compiled one without mypy, gets this stand-in, which leaves
the class alone.
"""
from __future__ import annotations

from typing import Any, Callable

try:
    from mypy_extensions import mypyc_attr
except ImportError:
    def mypyc_attr(*attrs: str, **kwattrs: Any) -> Callable[[Any], Any]:  # type: ignore[no-redef]
        return lambda cls: cls

__all__ = ["mypyc_attr"]
