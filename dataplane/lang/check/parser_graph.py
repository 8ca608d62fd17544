"""Type checker: a parser's states as a graph (p4c's ``SimplifyParsers``).

A parser whose transitions, followed from ``start``, reach neither ``accept`` nor
``reject`` loops for ever on every packet; p4c rejects it. A state without a transition
goes to ``reject``; a ``select`` without a matching case also rejects at run time, but
that edge is not in the graph, as in p4c.
"""
from __future__ import annotations

from dataplane.ir import decl as D


def _successors(st: D.StateDecl) -> list[str]:
    tr = st.transition
    if tr is None:
        return ["reject"]
    if tr.cases or tr.select:  # a select, possibly without keys (`select() { default: s; }`)
        return [case.state for case in tr.cases]
    return [tr.state]


class ParserGraphMixin:
    """Checks on the transitions between a parser's states."""

    def check_parser_ends(self, d: D.ParserDecl) -> None:
        """Report a parser in which ``accept`` and ``reject`` are both unreachable from ``start``."""
        states = {st.name: st for st in d.states}
        if "start" not in states:
            return  # reported already
        seen = {"start"}
        todo = ["start"]
        while todo:
            st = states.get(todo.pop())
            for nxt in _successors(st) if st is not None else ():
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        if "accept" not in seen and "reject" not in seen:
            self.error(f"parser '{d.name}' never reaches 'accept' or 'reject': its transitions from 'start' "
                       f"only loop through {', '.join(sorted(seen))}", d.span, code="parser-graph")
