"""Sub-parsers inlined into the caller's state machine, as p4c's ``GeneralInliner`` does.

A state ``s { a; sub.apply(pkt, hdr); b; transition t; }`` becomes

    s        { a; <copy-in>;   transition sub.start; }
    sub.*    the callee's states, renamed for this call; its ``accept`` goes to s_1
    s_1      { <copy-out>; b;  transition t; }

and each call site gets its own copy of the callee's states. The callee's ``reject`` stays
``reject``, which ends the whole parse. Locals the state declares before the call become
parser-level variables, since they must live across the new states.
"""
from __future__ import annotations

import dataclasses

from dataplane.ir import expr as E
from dataplane.ir import program as P
from dataplane.ir import stmt as S
from dataplane.ir import types as T
from dataplane.lang.inline.flatten import Flattener
from dataplane.lang.inline.rewrite import Env, Rewriter


def flatten_parser(fl: Flattener, args: tuple[E.Expr, ...]) -> P.Parser:
    """The top-level parser of ``fl`` with its sub-parsers' states in line."""
    top: P.Parser = fl.top
    env, _ = fl.top_env(args)
    names = {s: s for s in top.states}
    names.update(accept="accept", reject="reject")
    inline_states(fl, top, env, names, rename_decls=False)
    return dataclasses.replace(top, variables=tuple(fl.variables), instances=tuple(fl.instances),
                               states=fl.states, subblocks=(), ctor_params=())


def _is_apply(s: S.Stmt) -> bool:
    if not isinstance(s, S.CallStmt):
        return False
    target = s.call.target
    return isinstance(target, E.Member) and target.member == "apply" and isinstance(target.expr, E.PathExpr) \
        and isinstance(target.expr.type, T.Block)


def inline_states(fl: Flattener, decl: P.Parser, env: Env, names: dict[str, str], rename_decls: bool) -> None:
    """Add ``decl``'s states to ``fl.states`` under ``names``, each sub-parser call split out."""
    for st in decl.states.values():
        rw = Rewriter(env, fl, rename_decls)
        rw.push()
        if any(_is_apply(s) for s in st.stmts):
            rw.hoist_scope = rw.scopes[-1]
        name = names[st.name]
        current: list[S.Stmt] = []
        for s in st.stmts:
            if not _is_apply(s):
                current += rw.stmt(s)
                continue
            inst = fl.callee(rw, s.call)
            if inst is None:
                continue
            fl.copies.spend(inst.decl, s.span)
            args = fl.bind_call(rw, inst, s.call)
            current += fl.copy_in(inst, args, s.span)
            after = fl.fresh(name)
            callee = {n: fl.fresh(f"{inst.name}.{n}") for n in inst.decl.states}
            callee.update(accept=after, reject="reject")
            fl.states[name] = P.ParserState(name, tuple(current), next_state=callee["start"], span=st.span)
            fl.stack.append(inst.decl.name)
            inline_states(fl, inst.decl, inst.env, callee, rename_decls=True)
            fl.stack.pop()
            name, current = after, fl.copy_out(inst, args, s.span)
        select = tuple(rw.expr(k) for k in st.select)
        cases = tuple(dataclasses.replace(c, keysets=tuple(rw.expr(k) for k in c.keysets),
                                          next_state=names[c.next_state]) for c in st.cases)
        fl.states[name] = P.ParserState(name, tuple(current), select, cases, names[st.next_state], st.span)
