"""Where a PSA program's blocks keep their metadata, as psa_switch lays it out.

p4c's BMv2 PSA back end gives every struct *type* that a block parameter has one place in
the packet's PHV, whatever the parameter is called, so parameters of the same type are one
object: ``normal_meta`` written by the ingress deparser is what the egress parser reads
when both have the same type, and ingress user metadata reaches egress when the two
pipelines use the same type. psa_switch keeps that storage for a packet sent on from
ingress (unicast, and a copy per multicast replica) and zeroes it for a clone, a resubmitted
or a recirculated packet. Headers start invalid in each pipeline (psa_switch invalidates
them before the egress parser), so each pipeline's headers are a new object.

The *roles* are the package's type parameters as each pipeline sees them:
ingress (H, M, RESUBM, RECIRCM, CI2EM, NM), egress (H, M, NM, CI2EM, CE2EM, RECIRCM).
``Storage`` generates, once per program, the functions that make a pass's objects in role
order, sharing one object between roles of the same type and one object per device for
each struct type without fields.
"""
from __future__ import annotations

from typing import Any, Callable

from dataplane.arch.device import ArchitectureError
from dataplane.engine.structgen import py_name
from dataplane.ir import program as P
from dataplane.ir import types as T

INGRESS_ROLES = ("H", "M", "RESUBM", "RECIRCM", "CI2EM", "NM")
EGRESS_ROLES = ("H", "M", "NM", "CI2EM", "CE2EM", "RECIRCM")


def _struct(t: T.Type, role: str, block: str) -> T.StructLike:
    t = T.strip_newtype(t)
    if not isinstance(t, T.StructLike):
        raise ArchitectureError(f"block '{block}': the {role} parameter must have a struct or header type, not {t}")
    return t


def role_types(program: P.Program, slots: dict[str, str]) -> tuple[list[T.StructLike], list[T.StructLike]]:
    """The struct type of each ingress and egress role, read from the parsers and deparsers."""
    ip = program.parsers[slots["ingress.ip"]].params
    idp = program.controls[slots["ingress.id"]].params
    ep = program.parsers[slots["egress.ep"]].params
    edp = program.controls[slots["egress.ed"]].params
    ing = [(ip[1], "ingress.ip"), (ip[2], "ingress.ip"), (ip[4], "ingress.ip"), (ip[5], "ingress.ip"),
           (idp[1], "ingress.id"), (idp[3], "ingress.id")]
    egr = [(ep[1], "egress.ep"), (ep[2], "egress.ep"), (ep[4], "egress.ep"), (ep[5], "egress.ep"),
           (ep[6], "egress.ep"), (edp[2], "egress.ed")]
    return ([_struct(p.type, r, slots[b]) for (p, b), r in zip(ing, INGRESS_ROLES)],
            [_struct(p.type, r, slots[b]) for (p, b), r in zip(egr, EGRESS_ROLES)])


class Storage:
    """The generated makers of one program's per-pass objects.

    ``new_ingress()`` returns the ingress roles' objects; ``carry(ingress_objects)`` the
    ones egress takes over for a packet sent on; ``new_egress_carried(carried)`` the egress
    roles' objects with the carried ones in place, ``new_egress_fresh()`` all new (a clone's).
    ``copy_carried`` copies carried objects for one multicast replica.
    """

    def __init__(self, ingress: list[T.StructLike], egress: list[T.StructLike], struct_class: Callable[[str], type]):
        empties: dict[str, Any] = {}
        names: dict[str, Any] = {}

        def ref(t: T.StructLike) -> str:
            cls = struct_class(t.name)
            if not t.fields:   # nothing to keep apart: one object serves every packet
                if t.name not in empties:
                    empties[t.name] = cls()
                names[f"E_{t.name}"] = empties[t.name]
                return f"E_{t.name}"
            names[f"C_{t.name}"] = cls
            return f"C_{t.name}()"

        lines = []
        # Ingress: one object per distinct type; the headers too (a new packet's are all invalid).
        made: dict[str, str] = {}
        body = []
        for t in ingress:
            if t.name not in made:
                made[t.name] = f"o{len(made)}"
                body.append(f"    {made[t.name]} = {ref(t)}")
        lines += ["def new_ingress():", *body, f"    return ({', '.join(made[t.name] for t in ingress)},)"]
        # What egress takes over: the ingress objects of the egress roles' types (field-less
        # structs are shared anyway). Headers of the ingress headers' type are the same storage
        # in psa_switch, made invalid before the egress parser (values and a stack's nextIndex
        # stay, as psa_switch's PHV reset leaves them).
        carried_types = []
        for t in egress:
            if t.name in made and t.fields and t.name not in carried_types:
                carried_types.append(t.name)
        self.carried_types = tuple(carried_types)
        first_index = {t.name: i for i, t in reversed(list(enumerate(ingress)))}
        picks = ", ".join(f"i[{first_index[n]}]" for n in carried_types)
        lines += ["def carry(i):", f"    return ({picks}{',' if picks else ''})"]
        for fresh in (False, True):
            made = {}
            body = []
            for k, t in enumerate(egress):
                if t.name in made:
                    continue
                made[t.name] = f"o{len(made)}"
                if t.name in carried_types and not fresh:
                    body.append(f"    {made[t.name]} = c[{carried_types.index(t.name)}]")
                    if k == 0:
                        body += [f"    {line}" for line in _invalidate(made[t.name], t)]
                else:
                    body.append(f"    {made[t.name]} = {ref(t)}")
            name = "new_egress_fresh" if fresh else "new_egress_carried"
            lines += [f"def {name}({'' if fresh else 'c'}):", *body,
                      f"    return ({', '.join(made[t.name] for t in egress)},)"]
        self.source = "\n".join(lines) + "\n"
        exec(compile(self.source, "<psa storage>", "exec"), names)
        self.new_ingress: Callable[[], tuple] = names["new_ingress"]
        self.carry: Callable[[tuple], tuple] = names["carry"]
        self.new_egress_carried: Callable[[tuple], tuple] = names["new_egress_carried"]
        self.new_egress_fresh: Callable[[], tuple] = names["new_egress_fresh"]

    @staticmethod
    def copy_carried(carried: tuple) -> tuple:
        return tuple(o._clone() for o in carried)


def _invalidate(obj: str, t: T.StructLike) -> list[str]:
    """Statements making every header in ``obj`` (of struct type ``t``) invalid, as its
    ``_invalidate()`` does, written out for the struct's own header fields."""
    if isinstance(t, T.Header):
        return [f"{obj}._valid = False"]
    lines = []
    for f in t.fields:
        ft = T.strip_newtype(f.type)
        if isinstance(ft, T.Header):
            lines.append(f"{obj}.{py_name(f.name)}._valid = False")
        elif isinstance(ft, (T.StructLike, T.Stack)):
            lines.append(f"{obj}.{py_name(f.name)}._invalidate()")
    return lines
