"""Table applies and actions: a lookup gives each packet an entry, each action then runs as masked
assignments over the packets whose entry names it, its parameters as columns of the entries'
arguments. Direct counters add each packet's hit to its entry.
"""
from __future__ import annotations

import numpy as np

from dataplane.engine.batch.refuse import refuse
from dataplane.engine.batch.tables import Snapshot
from dataplane.engine.batch.values import U64, is_signed, leaves, scalar_width, zeros
from dataplane.ir import expr as E
from dataplane.ir import types as T


class ActionMixin:
    """Table and action compilation for ``BlockCompiler``: uses ``control``, ``tables``, ``program``."""

    def find_action(self, name: str, node):
        a = self.control.actions.get(name) if self.control is not None else None
        if a is None:
            a = self.program.actions.get(name)
        if a is None:
            refuse(node, f"action '{name}' not found")
        return a

    def compiled_action(self, name: str, node):
        """(body fn, [parameter column paths], action) of an action, compiled once per block."""
        hit = self.action_cache.get(name)
        if hit is not None:
            return hit
        action = self.find_action(name, node)
        body, paths = self.compiled_callable(f"A.{self.block_name}.{name}", action.params, action.body, action)
        self.action_cache[name] = (body, paths, action)
        return self.action_cache[name]

    def compiled_callable(self, prefix: str, params, body_ir, node):
        """An action's or function's body over parameter columns ``prefix.NAME``; ``return`` ends it
        for the packets that reach it (``st.returned``)."""
        saved, saved_in = self.scope, getattr(self, "in_callable", False)
        self.scope = dict(saved)
        paths = []
        for p in params:
            leaves(p.type, f"{prefix}.{p.name}", node)
            self.scope[p.name] = f"{prefix}.{p.name}"
            paths.append(f"{prefix}.{p.name}")
        self.in_callable = True
        try:
            body = self.stmt(body_ir)
        finally:
            self.scope, self.in_callable = saved, saved_in
        return body, paths

    def call_binding(self, params, paths: list[str], args, node):
        """(copy-in, copy-out) functions for a call: arguments copied into the parameters before
        the body, ``out``/``inout`` parameters copied back to their arguments after it (spec 6.8)."""
        if len(args) != len(params):
            refuse(node, f"call with {len(args)} of {len(params)} arguments")
        ins, outs = [], []
        for p, path, a in zip(params, paths, args):
            t = T.strip_newtype(p.type)
            cols = [c[len(path):] for c, _ in leaves(p.type, path, node)]
            if p.direction == "out":
                if isinstance(t, T.StructLike):
                    refuse(node, f"an out parameter '{p.name}' of type {t.name}")
                ins.append(lambda st, act, path=path, t=p.type: st.cols.__setitem__(path, zeros(t, st.n)))
            elif isinstance(t, T.StructLike):
                if not isinstance(a, (E.PathExpr, E.Member)):
                    refuse(a, f"argument {type(a).__name__} for parameter '{p.name}' of type {t.name}")
                src = self.path_of(a)
                ins.append(lambda st, act, src=src, path=path, cols=cols:
                           [st.cols.__setitem__(path + c, st.cols[src + c]) for c in cols])
            else:
                v = self.expr(a)
                ins.append(lambda st, act, v=v, path=path: st.cols.__setitem__(
                    path, np.broadcast_to(np.asarray(v(st, act)), (st.n,))))
            if p.direction in ("out", "inout") and not isinstance(a, E.DontCareExpr):
                if isinstance(a, E.Slice):
                    refuse(a, f"a slice as the {p.direction} argument for '{p.name}'")
                dst = self.path_of(a)
                outs.append((dst, path, cols))

        def copy_in(st, act):
            for f in ins:
                f(st, act)

        def copy_out(st, act):
            for dst, src, cols in outs:
                for c in cols:
                    st.cols[dst + c] = np.where(act, st.cols[src + c], st.cols[dst + c])
        return copy_in, copy_out

    def direct_action(self, name: str, call: E.Call):
        body, paths, action = self.compiled_action(name, call)
        copy_in, copy_out = self.call_binding(action.params, paths, [a.value for a in call.args], call)

        def run(st, act):
            copy_in(st, act)
            saved = st.returned, st.retval
            st.returned = st.retval = None
            body(st, act)
            st.returned, st.retval = saved
            copy_out(st, act)
        return run

    def function_call(self, call: E.Call):
        """A P4 function: its body over parameter columns; the value its ``return`` gives."""
        fn = self.program.functions.get(call.target.name)
        if fn is None:
            refuse(call, f"function '{call.target.name}' not found")
        key = "F." + fn.name
        if key not in self.action_cache:
            self.action_cache[key] = self.compiled_callable(key, fn.params, fn.body, fn)
        body, paths = self.action_cache[key]
        copy_in, copy_out = self.call_binding(fn.params, paths, [a.value for a in call.args], call)
        returns = not isinstance(T.strip_newtype(fn.ret), T.Void)
        if returns:
            leaves(fn.ret, key + ".$ret", call)
            ret_t = fn.ret

        def run(st, act):
            copy_in(st, act)
            saved = st.returned, st.retval
            st.returned = None
            st.retval = zeros(ret_t, st.n) if returns else None
            body(st, act)
            value = st.retval
            st.returned, st.retval = saved
            copy_out(st, act)
            return value
        return run

    # ---- tables ----------------------------------------------------------------------------------
    def table_apply(self, name: str, node):
        """A function running the table for the packets in ``act``; it returns (hit, action index)."""
        cached = self.apply_cache.get(name)
        if cached is not None:
            return cached
        table = self.control.tables[name]
        rt = self.tables.get(f"{self.control.name}.{name}")
        if rt is None:
            refuse(node, f"table '{name}' has no runtime table")
        if rt.selector_fields or table.implementation:
            refuse(table, f"table '{name}' uses an action profile or selector (implementation)")
        if rt.has_direct_meter:
            refuse(table, f"table '{name}' has a direct meter (order-dependent state)")
        if rt.support_timeout:
            refuse(table, f"table '{name}' has support_timeout (entry hit times)")
        if sum(w for _, w in rt.key_layout) > 64 and rt.match.structure == "lpm":
            refuse(table, f"table '{name}' has an lpm key {sum(w for _, w in rt.key_layout)} bits wide "
                          f"(the batch lpm lookup packs keys into 64 bits)")
        for ac in table.actions:
            if ac.args:
                refuse(table, f"table '{name}' lists action '{ac.action}' with arguments")
        keys = []
        for k in table.keys:
            if is_signed(k.expr.type):
                refuse(k, f"table '{name}' key of signed type")
            f = self.expr(k.expr)
            if isinstance(T.strip_newtype(k.expr.type), T.Bool):
                keys.append(lambda st, act, f=f: np.broadcast_to(f(st, act), (st.n,)).astype(U64))
            else:
                keys.append(lambda st, act, f=f: np.broadcast_to(f(st, act), (st.n,)))
        names = list(dict.fromkeys([a.action for a in table.actions] + [table.default_action.action]))
        bodies = []
        params: dict[str, list[int]] = {}
        for a in names:
            body, paths, action = self.compiled_action(a, table)
            if any(p.direction for p in action.params):
                refuse(table, f"table '{name}' runs action '{a}', which has directional parameters")
            bodies.append((a, body, paths))
            params[a] = [scalar_width(p.type, action) or 1 for p in action.params]
        layout = rt.key_layout
        snaps = self.snapshots
        counted = rt.has_direct_counter

        def apply(st, act):
            snap = snaps.get(rt.qualified_name)
            if snap is None or snap.version != rt.match.version or snap.default is not rt.default:
                snap = snaps[rt.qualified_name] = Snapshot(rt, names, params)
            idx = snap.lookup([k(st, act) for k in keys], layout, st.n)
            action_of = snap.action_ids[idx]
            hit = idx < snap.size
            if counted:
                rows = act & hit
                if rows.any():
                    got = np.bincount(idx[rows], minlength=snap.size)
                    nbytes = np.bincount(idx[rows], weights=st.packet_length[rows], minlength=snap.size)
                    for i in np.flatnonzero(got).tolist():
                        snap.entries[i].packets += int(got[i])
                        snap.entries[i].bytes += int(nbytes[i])
            for ai, (a, body, paths) in enumerate(bodies):
                rows = act & (action_of == ai)
                if not rows.any():
                    continue
                for p, col in zip(paths, snap.args[a]):
                    st.cols[p] = col[idx]
                saved = st.returned
                st.returned = None
                body(st, rows)
                st.returned = saved
            return hit, action_of.astype(U64)

        self.apply_cache[name] = (apply, names)
        return self.apply_cache[name]

    def table_apply_fn(self, call: E.Call):
        target = call.target
        if not (isinstance(target, E.Member) and target.member == "apply" and isinstance(target.expr, E.PathExpr)):
            refuse(call, "apply result of something other than a table")
        return self.table_apply(target.expr.name, call)

    def apply_result(self, e: E.Member):
        apply, _ = self.table_apply_fn(e.expr)
        if e.member == "hit":
            return lambda st, act: apply(st, act)[0]
        if e.member == "miss":
            return lambda st, act: ~apply(st, act)[0]
        refuse(e, f"table apply result '.{e.member}' in an expression")

    def action_run(self, e: E.Member):
        apply, names = self.table_apply_fn(e.expr)
        return (lambda st, act: apply(st, act)[1]), names
