"""The one-shape lookup written byte by byte, for PyPy: the same answers as ``_one_shape``'s, without
big integers.

``DecisionCache._one_shape`` reads the region as one big integer and masks it. On PyPy that
conversion is what costs: ``int.from_bytes`` of a 38-byte region, the big-integer key's hash and
masks and ``to_bytes`` of the output take most of a lookup's 1.1 us (``struct.unpack`` is no
cheaper), while indexing single bytes, slicing, joining and writing into a ``bytearray`` compile to
plain loads and copies. So for a ``fast`` shape (one IPv4-style checksum over byte-aligned 16-bit
words) this module writes a ``find`` of its own, as the engine writes a pipeline's code:

- the checksum's verdict from the sum of the header's words read by index (the checksum's own
  word left out: the sum the big-integer form takes modulo 0xFFFF);
- the key as the region's key bytes, sliced, and its part-key bytes masked; a table per verdict;
- the output as the decision's template bytes with the carried bytes and the new checksum written in.

Its tables only index decisions the big-integer form found: on a miss it asks that ``find``
(which counts the hit or miss and whose table ``store`` fills) and keeps what it answered. A sum of
0 (the one case the verdict needs the rest of the header for) is that ``find``'s too. ``byte_find``
returns None for a shape it does not write for; ``DecisionCache.clear`` empties its tables.
``ENABLED`` says whether the cache uses it; PyPy's traces call it rather than copy it in
(``dataplane.pypy_jit``; docs/speed/simulator.md, "The byte-indexed lookup").
"""
from __future__ import annotations

import sys
from types import ModuleType
from typing import Any, Callable

from dataplane import pypy_jit
from dataplane.engine.decision.frame import UNJOINED_MIN, Frame

__all__ = ["byte_find", "ENABLED"]

#: whether a cache of one shape looks packets up with ``byte_find`` (PyPy; on CPython big integers
#: are C, and the tests turn it on to prove both forms give the same answers)
ENABLED = sys.implementation.name == "pypy"


def _runs(mask: bytes) -> list[tuple[int, int, int]]:
    """(start, end, mask byte) of the runs of equal bytes of ``mask`` that are 0xFF, and of each
    byte that is neither 0 nor 0xFF on its own (zero bytes are left out)."""
    out: list[tuple[int, int, int]] = []
    i, n = 0, len(mask)
    while i < n:
        m = mask[i]
        j = i + 1
        if m == 0xFF:
            while j < n and mask[j] == 0xFF:
                j += 1
        if m:
            out.append((i, j, m))
        i = j
    return out


def _source(r: int, words: list[int], at: int, cpos: int, key: list[tuple[int, int, int]],
            carried: list[tuple[int, int, int]]) -> str:
    """The text of ``find`` for one shape (see the module docstring): ``_make``'s arguments and
    built-ins are all it names."""
    total = " + ".join(f"(t[{i}] << 8 | t[{i + 1}])" for i in words) or "0"
    slices = [f"t[{a}:{b}]" for a, b, m in key if m == 0xFF]
    parts = [f"t[{a}] & {m}" for a, b, m in key if m != 0xFF]
    if parts:
        slices.append(f"bytes(({', '.join(parts)},))")
    writes = [f"    ob[{a}:{b}] = t[{a}:{b}]" if m == 0xFF else f"    ob[{a}] |= t[{a}] & {m}"
              for a, b, m in carried]
    lines = [
        "def _make(cache, fallback, tables, frame, unjoined_min):",
        "  def find(port, data):",
        "    rest = b''",
        "    if data.__class__ is frame:",
        "        base = data.base",
        "        top = head = data.head",
        f"        if len(head) != {r}:",
        f"            if len(head) > {r}:",
        f"                rest = head[{r}:]",
        "            else:",
        "                base = head = data.join()",
        f"            top = head[:{r}]",
        "    else:",
        "        base = head = data",
        f"        top = data[:{r}]",
        "    n = len(base)",
        f"    if n < {r}:",
        "        return fallback(port, data)",
        "    t = top",
        f"    c = t[{at}] << 8 | t[{at + 1}]",
        f"    s = ({total}) % 0xFFFF",
        "    if not s:",
        "        return fallback(port, data)",
        "    ok = (s ^ 0xFFFF) == c",
        f"    key = {' + '.join(slices) or 'b' + repr('')}",
        "    hit = tables[ok].get(key)",
        "    if hit is None:",
        "        d, out = fallback(port, data)",
        "        if d is not None and d.template is not None and d.delta is not None:",
        f"            tables[ok][key] = (d, d.template.to_bytes({r}, 'big'))",
        "        return d, out",
        "    d, tb = hit",
        "    cache.hits += 1",
        "    s = (s + d.delta) % 0xFFFF",
        "    cs = s ^ 0xFFFF if s else 0",
        "    ob = bytearray(tb)",
        *writes,
        f"    ob[{cpos}] = cs >> 8",
        f"    ob[{cpos + 1}] = cs & 0xFF",
        "    head2 = bytes(ob)",
        f"    if n == {r}:",
        "        return d, head2",
        "    if n < unjoined_min and base is data:",
        f"        return d, head2 + data[{r}:]",
        "    return d, frame(head2 + rest if rest else head2, base)",
        "  return find",
    ]
    return "\n".join(lines) + "\n"


def byte_find(cache: Any, sh: Any, fallback: Callable, tables: tuple[dict, dict]) -> Callable | None:
    """A ``find`` for ``cache``'s one shape ``sh`` reading bytes by index (module docstring),
    asking ``fallback`` (the big-integer ``find``) what its ``tables`` (one per verdict, which the
    cache empties with its own) do not hold; None where the shape is not one it writes for."""
    if sh.fast is None or cache.reads_port or cache.reads_length:
        return None
    r = sh.region
    shift, hmask, at, weight, cshift = sh.fast
    gshift = sh.update[0][0]
    hbits = hmask.bit_length()
    if shift % 8 or hbits % 16 or cshift % 16 or gshift % 8 or weight != 1:
        return None
    hend = r - shift // 8
    hstart = hend - hbits // 8
    cpos = r - gshift // 8 - 2
    if hstart < 0 or not hstart <= at < hend or (at - hstart) % 2 or cpos != at:
        return None
    # Bits the output takes from the packet must be clear in every template and checksum: the
    # carried bytes are written over the template's and the checksum into zeros (``store``).
    if sh.pmask & sh.cmask:
        return None
    words = [i for i in range(hstart, hend, 2) if i != at]
    key = _runs(sh.kmask.to_bytes(r, "big"))
    carried = _runs(sh.pmask.to_bytes(r, "big"))
    source = _source(r, words, at, cpos, key, carried)
    make = _makers.get(source)
    if make is None:
        if len(_makers) >= _MAKERS_MAX:
            _makers.clear()
        # run in a module's namespace: PyPy's JIT reads a module's globals (the built-ins it calls)
        # as constants, where a plain dict made for exec is searched at every call
        scope = ModuleType(f"{__name__}.generated").__dict__
        exec(compile(source, f"<byte_find {'/'.join(sh.headers)}>", "exec"), scope)
        make = _makers[source] = scope["_make"]
    find = make(cache, fallback, tables, Frame, UNJOINED_MIN)
    # Called, not copied into the traces: inline, PyPy's traces of a hop grew past its limit
    # (``trace_limit``) and were cut (two aborts a run instead of eight; rdma-perm 1.1x)
    pypy_jit.not_inlined(find)
    return find


#: ``_make`` by its text: every switch with the same shape gets one code object, which PyPy's JIT
#: compiles once (a code object a switch, the lookup measured 0.8x the big-integer one)
_makers: dict[str, Callable] = {}
_MAKERS_MAX = 256
