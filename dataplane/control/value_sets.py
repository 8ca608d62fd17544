"""Parser value sets from the control plane (BMv2's ``pvs_add``/``pvs_remove``/``pvs_get``/``pvs_clear``).

A member is a value, with an optional mask, over the select keys concatenated most
significant first. It may be given as one number (or text such as ``0x0800``) for the whole
key, or, for a set of structs or tuples, as one value per field in order.
"""
from __future__ import annotations

from typing import Any

from dataplane.control.config_errors import ControlPlaneError
from dataplane.control.match_keys import parse_number
from dataplane.errors import shown


class ValueSetApi:
    """Mixed into ``Switch``: needs ``_instance`` and ``_extern_call``."""

    def pvs_add(self, name: str, value: Any, mask: Any = None) -> None:
        """Add a member to value set ``name`` (a no-op if it is there already)."""
        vs = self._instance(name, "value_set")
        self._extern_call(vs.cp_add, *self._pvs_member(vs, value, mask))

    def pvs_remove(self, name: str, value: Any, mask: Any = None) -> None:
        vs = self._instance(name, "value_set")
        self._extern_call(vs.cp_remove, *self._pvs_member(vs, value, mask))

    def pvs_get(self, name: str) -> list[tuple[int, int]]:
        """The members of value set ``name`` as (value, mask) pairs over the concatenated keys."""
        return list(self._instance(name, "value_set").members)

    def pvs_clear(self, name: str) -> None:
        self._instance(name, "value_set").reset()

    def _pvs_member(self, vs, value: Any, mask: Any) -> tuple[int, int | None]:
        return _join(vs, value, "value"), (None if mask is None else _join(vs, mask, "mask"))


def _join(vs, value: Any, what: str) -> int:
    """One number for the whole key, or one per field concatenated."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(vs.widths):
            raise ControlPlaneError(f"value_set '{vs.name}' has {len(vs.widths)} field(s), got {len(value)} {what}s")
        out = 0
        for v, width in zip(value, vs.widths):
            n = parse_number(v, f"value_set '{vs.name}' {what}")
            if not 0 <= n < (1 << width):
                raise ControlPlaneError(f"value_set '{vs.name}': {what} {v if isinstance(v, str) and len(v) <= 40 else shown(v)} does not fit in {width} bits")
            out = (out << width) | n
        return out
    return parse_number(value, f"value_set '{vs.name}' {what}")

