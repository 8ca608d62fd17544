"""What a PSA switch reads from its program when it loads: the PSA table properties, and
which blocks have nothing to do (so that the packet path need not call them)."""
from __future__ import annotations

import dataclasses

from dataplane.arch.device import ArchitectureError
from dataplane.ir import expr as E
from dataplane.ir import program as P


def accepts_at_once(parser: P.Parser) -> bool:
    """A parser whose start state has no statements and goes to accept: it extracts nothing."""
    start = parser.states.get("start")
    return (len(parser.states) == 1 and start is not None and not start.stmts and not start.select
            and start.next_state == "accept" and all(v.init is None for v in parser.variables))


def does_nothing(control: P.Control) -> bool:
    """A control with an empty apply block and no variable initializers."""
    return not control.body.stmts and all(v.init is None for v in control.variables)


_PSA_PROPERTIES = {"psa_implementation": "implementation", "psa_direct_counter": "counters",
                   "psa_direct_meter": "meters"}


def with_psa_properties(t: P.Table) -> P.Table:
    """The table with PSA's ``psa_implementation``, ``psa_direct_counter`` and ``psa_direct_meter``
    properties in the fields the engine reads (v1model's ``implementation``, ``counters``, ``meters``)."""
    changes = {}
    for name, value in t.properties:
        field = _PSA_PROPERTIES.get(name)
        if field is None:
            continue
        if not isinstance(value, E.PathExpr):
            raise ArchitectureError(f"table '{t.name}': {name} must name an extern instance")
        changes[field] = value.name
    return dataclasses.replace(t, **changes) if changes else t
