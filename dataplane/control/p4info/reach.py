"""What p4c's front end keeps of a control before it generates P4Info.

It folds constants and drops dead code (the untaken side of ``if (true)`` or ``false ? a : b``),
removes tables nothing applies and inlines actions called from other actions; an action the
control's body calls directly stays, without its parameters.
"""
from __future__ import annotations

from dataplane.ir import expr as E
from dataplane.ir import stmt as S
from dataplane.ir.node import children


def called_actions(body: S.Stmt) -> list[str]:
    """Actions a control body calls where the call can run."""
    return [n.target.name for n in live_walk(body)
            if isinstance(n, E.Call) and isinstance(n.target, E.PathExpr) and n.target.ref == "action"]


def applied_tables(body) -> set[str]:
    """Tables a control body applies where the call can run (p4c removes the others)."""
    return {n.target.expr.name for n in live_walk(body)
            if isinstance(n, E.Call) and isinstance(n.target, E.Member) and n.target.member == "apply"
            and isinstance(n.target.expr, E.PathExpr) and n.target.expr.ref == "table"}


def live_walk(node):
    """Every node under ``node`` except the untaken side of ``if (true)`` / ``false ? a : b``,
    which p4c's constant folding removes before it generates P4Info."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, (S.If, E.Mux)) and isinstance(n.cond, E.BoolLiteral):
            taken = n.then if n.cond.value else n.otherwise
            if taken is not None:
                stack.append(taken)
            continue
        stack.extend(reversed(list(children(n))))
