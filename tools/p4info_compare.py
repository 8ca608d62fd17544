"""Compare two P4Info messages ignoring the order of repeated fields (conformance's ``p4info`` suite).

Both sides are put in a canonical form first: every repeated field sorted (messages by their
canonical serialization). ``first_difference`` then names the first field path where they
differ (``tables.match_fields.bitwidth``), which groups alike failures into one category.
"""
from __future__ import annotations

from google.protobuf import text_format
from google.protobuf.descriptor import FieldDescriptor


def canonical(msg) -> None:
    """Sort every repeated field of ``msg`` in place, recursively (map fields are unordered already)."""
    for fd, value in msg.ListFields():
        if fd.message_type is not None and fd.message_type.GetOptions().map_entry:
            if fd.message_type.fields_by_name["value"].message_type is not None:
                for v in value.values():
                    canonical(v)
            continue
        if fd.label == FieldDescriptor.LABEL_REPEATED:
            if fd.message_type is not None:
                for item in value:
                    canonical(item)
                items = sorted(value, key=lambda m: m.SerializeToString(deterministic=True))
                copies = [type(m)() for m in items]
                for c, m in zip(copies, items):
                    c.CopyFrom(m)
                del value[:]
                value.extend(copies)
            else:
                items = sorted(value)
                del value[:]
                value.extend(items)
        elif fd.message_type is not None:
            canonical(value)


def first_difference(a, b, path: str = "") -> tuple[str, str] | None:
    """(field path, detail) of the first difference between canonical ``a`` and ``b``, or None."""
    fields = {fd.name: fd for fd, _ in a.ListFields()}
    fields.update({fd.name: fd for fd, _ in b.ListFields()})
    for name in sorted(fields, key=lambda n: fields[n].number):
        fd = fields[name]
        p = f"{path}.{name}" if path else name
        va, vb = getattr(a, name), getattr(b, name)
        is_map = fd.message_type is not None and fd.message_type.GetOptions().map_entry
        if is_map:
            keys = sorted(set(va.keys()) | set(vb.keys()))
            for k in keys:
                if k not in va or k not in vb:
                    return p, f"key {k!r} only in {'expected' if k in vb else 'ours'}"
                if fd.message_type.fields_by_name["value"].message_type is not None:
                    d = first_difference(va[k], vb[k], p)
                    if d:
                        return d
                elif va[k] != vb[k]:
                    return p, f"[{k!r}] ours {va[k]!r}, expected {vb[k]!r}"
            continue
        if fd.label == FieldDescriptor.LABEL_REPEATED:
            if len(va) != len(vb):
                if fd.message_type is not None:
                    names = lambda xs: sorted(_label(x) for x in xs)   # noqa: E731
                    ours, theirs = names(va), names(vb)
                    extra = sorted(set(ours) - set(theirs))
                    missing = sorted(set(theirs) - set(ours))
                    return f"{p} count", f"ours {len(va)} expected {len(vb)}; extra {extra[:3]} missing {missing[:3]}"
                return f"{p} count", f"ours {list(va)[:4]} expected {list(vb)[:4]}"
            for i, (x, y) in enumerate(zip(va, vb)):
                if fd.message_type is not None:
                    d = first_difference(x, y, p)
                    if d:
                        return d[0], f"[{i}] {d[1]}"
                elif x != y:
                    return p, f"ours {x!r}, expected {y!r}"
            continue
        if fd.message_type is not None:
            ha, hb = a.HasField(name), b.HasField(name)
            if ha != hb:
                return p, ("present only in ours" if ha else "missing in ours")
            d = first_difference(va, vb, p)
            if d:
                return d
        elif va != vb:
            return p, f"ours {va!r}, expected {vb!r}"
    return None


def _label(m) -> str:
    pre = getattr(m, "preamble", None)
    if pre is not None and pre.name:
        return pre.name
    if hasattr(m, "name") and isinstance(m.name, str) and m.name:
        return m.name
    return text_format.MessageToString(m, as_one_line=True)[:60]


def compare_text(ours, golden_text: str):
    """Parse ``golden_text`` as a P4Info and compare with ``ours``: None if identical, else
    (path, detail)."""
    from p4.config.v1 import p4info_pb2

    expected = p4info_pb2.P4Info()
    text_format.Parse(golden_text, expected)
    mine = p4info_pb2.P4Info()
    mine.CopyFrom(ours)
    canonical(mine)
    canonical(expected)
    return first_difference(mine, expected)
