"""``record``: ``dataclasses.dataclass`` that also runs on Python 3.9 (PyPy).

The package's data classes use two options that arrived in Python 3.10, ``slots=True``
and keyword-only fields (``kw_only=True`` or a ``_: KW_ONLY`` marker). On 3.10 and newer
``record`` is ``dataclass`` itself. On 3.9, the version of the PyPy that Debian ships
(several times faster than CPython on long simulations), it builds the same class
without slots, and writes the ``__init__`` itself so keyword-only fields stay
keyword-only and may follow fields without defaults, as on 3.10.
"""
from __future__ import annotations

import atexit
import builtins
import dataclasses
import marshal
import os
import sys
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:   # tells a type checker that @record makes data classes (typing has it from 3.11 only)
    from typing_extensions import dataclass_transform
else:
    def dataclass_transform(**_kwargs: Any) -> Callable[[Any], Any]:
        return lambda f: f

NATIVE = sys.version_info >= (3, 10)

if NATIVE:
    from dataclasses import KW_ONLY
else:
    class KW_ONLY:  # type: ignore[no-redef]  # noqa: N801 - the name dataclasses gives it on 3.10+
        """Marker annotation: the fields after ``_: KW_ONLY`` are keyword-only."""

_KW_ATTR = "__record_kw_only__"


@dataclass_transform(field_specifiers=(dataclasses.field,))
def record(cls: type | None = None, /, **options: Any) -> Any:
    """``@record(frozen=True, slots=True, kw_only=True, ...)``: a dataclass on every supported Python."""
    def wrap(c: type) -> type:
        if NATIVE:
            if not _methods.on:
                return dataclasses.dataclass(**options)(c)
            # dataclasses writes each method's source and runs it with ``exec``: compiling
            # it was most of making a class (the IR's 180 classes took 0.2 s of every
            # command's start). The same source gives the same code, kept between runs.
            dataclasses.exec = _methods.exec   # type: ignore[attr-defined]
            try:
                return dataclasses.dataclass(**options)(c)
            finally:    # pop, not del: another thread may have taken it away already
                vars(dataclasses).pop("exec", None)
        return _emulate(c, **options)
    return wrap if cls is None else wrap(cls)


class _MethodCode:
    """Code objects of the methods dataclasses generates, by source, loaded from and saved to
    ``records-<python>.marshal`` in dataplane's cache folder (``DATAPLANE_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/dataplane`` or ``~/.cache/dataplane``; ``DATAPLANE_CACHE=off`` turns it off;
    loaded only when this user owns it and no one else may write it, ``cache_files``).
    ``exec`` runs a source string exactly as the builtin does (compiled as ``<string>`` with no
    ``__future__`` flags of this module), from its cached code. CPython only: marshal's format
    and code objects belong to one interpreter version."""

    def __init__(self) -> None:
        self.on = sys.implementation.name == "cpython" and \
            os.environ.get("DATAPLANE_CACHE", "").strip().lower() not in ("off", "0", "no", "false")
        self.code: dict[str, Any] | None = None
        self.added = False

    def path(self) -> str:
        from dataplane.cache_files import cache_root

        return os.path.join(cache_root(), f"records-{sys.implementation.cache_tag}-{sys.hexversion:x}.marshal")

    def exec(self, source: Any, globals_: Any = None, locals_: Any = None) -> None:
        if not isinstance(source, str):
            return builtins.exec(source, globals_, locals_)
        if self.code is None:
            self.code = self._load()
            atexit.register(self._save)
        code = self.code.get(source)
        if code is None:
            code = self.code[source] = compile(source, "<string>", "exec", dont_inherit=True)
            self.added = True
        return builtins.exec(code, globals_, locals_)

    def _load(self) -> dict[str, Any]:
        from pathlib import Path

        from dataplane.cache_files import read_trusted

        raw = read_trusted(Path(self.path()))
        try:
            got = marshal.loads(raw) if raw is not None else {}
            return got if isinstance(got, dict) else {}
        except (EOFError, ValueError, TypeError):
            return {}

    def _save(self) -> None:
        """Written beside its name and renamed into place; a folder that cannot be written is skipped."""
        if not self.added or self.code is None:
            return
        import tempfile
        from pathlib import Path

        from dataplane.cache_files import private_folder

        path = self.path()
        if not private_folder(Path(path).parent):
            return
        try:
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".records-")
            with os.fdopen(fd, "wb") as f:
                marshal.dump(self.code, f)
            os.replace(tmp, path)
        except OSError:
            pass


_methods = _MethodCode()


def _emulate(cls: type, *, slots: bool = False, kw_only: bool = False, init: bool = True,
             **options: Any) -> type:
    annotations = cls.__dict__.get("__annotations__", {})
    names = list(annotations)
    keyword: set[str] = set()
    for base in cls.__mro__[1:]:
        keyword |= getattr(base, _KW_ATTR, set())
    if kw_only:
        keyword |= set(names)
    for i, name in enumerate(names):
        if annotations[name] in ("KW_ONLY", KW_ONLY):
            keyword |= set(names[i + 1:])
            del annotations[name]
            if name in cls.__dict__:
                delattr(cls, name)
    cls = dataclasses.dataclass(init=False, **options)(cls)
    setattr(cls, _KW_ATTR, frozenset(keyword))
    if init:
        cls.__init__ = _make_init(cls, keyword, options.get("frozen", False))  # type: ignore[misc]
    return cls


def _make_init(cls: type, keyword: set[str], frozen: bool) -> Callable[..., None]:
    """Source for ``__init__``: positional fields in order, then ``*``, then keyword-only ones."""
    env: dict[str, Any] = {"_setattr": object.__setattr__, "_MISSING": dataclasses.MISSING}
    positional: list[str] = []
    kwonly: list[str] = []
    body: list[str] = []
    seen_default = False
    for f in dataclasses.fields(cls):
        has_default = f.default is not dataclasses.MISSING
        has_factory = f.default_factory is not dataclasses.MISSING
        if has_factory:
            env[f"_factory_{f.name}"] = f.default_factory
        if not f.init:
            if has_default:
                env[f"_default_{f.name}"] = f.default
                body.append(_assign(f.name, f"_default_{f.name}", frozen))
            elif has_factory:
                body.append(_assign(f.name, f"_factory_{f.name}()", frozen))
            continue
        if has_default:
            env[f"_default_{f.name}"] = f.default
            param = f"{f.name}=_default_{f.name}"
        elif has_factory:
            param = f"{f.name}=_MISSING"
        else:
            param = f.name
        if f.name in keyword:
            kwonly.append(param)
        else:
            if not (has_default or has_factory) and seen_default:
                raise TypeError(f"non-default argument {f.name!r} follows default argument")
            seen_default = seen_default or has_default or has_factory
            positional.append(param)
        value = f"_factory_{f.name}() if {f.name} is _MISSING else {f.name}" if has_factory else f.name
        body.append(_assign(f.name, value, frozen))
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    params = ["self", *positional] + (["*", *kwonly] if kwonly else [])
    source = f"def __init__({', '.join(params)}):\n" + "".join(f"    {line}\n" for line in body or ["pass"])
    exec(source, env)  # noqa: S102 - the same technique dataclasses uses for __init__
    init = env["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


def _assign(name: str, value: str, frozen: bool) -> str:
    return f"_setattr(self, {name!r}, {value})" if frozen else f"self.{name} = {value}"
