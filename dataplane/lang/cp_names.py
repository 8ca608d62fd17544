"""The check p4c makes only when it writes P4Info: no two actions share a control-plane name.

p4c runs ``DuplicateActionControlPlaneNameCheck`` after inlining only when control-plane API
generation is on (``controlPlaneAPIGenEnabled``: ``--p4runtime-files``, and its test driver);
without it, two identical ``@name("._drop")`` actions in two controls compile. So the P4Info
builder runs this, not the front end: a top-level action is ``.name``, an action of a control
``.Control.name``, an ``@name`` replaces the name and one starting with ``.`` is absolute.
"""
from __future__ import annotations

from dataplane.errors import DiagnosticSink
from dataplane.ir import program as P


def check_action_names(program: P.Program, sink: DiagnosticSink) -> None:
    """Report every action whose control-plane name an earlier action already has."""
    seen: dict[str, P.Action] = {}
    scoped = [("", a) for a in program.actions.values()]
    scoped += [(c.name, a) for c in program.controls.values() for a in c.actions.values()]
    for block, action in scoped:
        full = P.control_plane_name(block, action.name, action.annotations)
        other = seen.setdefault(full, action)
        if other is not action:
            where = f"{other.span.file}:{other.span.line}" if other.span.line else "elsewhere"
            sink.error(f"action '{action.name.split('.')[-1]}' has the control-plane name '{full}' of the action "
                       f"declared at {where}", action.span, "duplicate")
