"""Table applies and actions: a lookup gives each packet an entry, each action then runs as masked
assignments over the packets whose entry names it, its parameters as columns of the entries'
arguments. Direct counters add each packet's hit to its entry.
"""
from __future__ import annotations

import numpy as np

from dataplane.engine.batch.refuse import refuse
from dataplane.engine.batch.tables import Snapshot
from dataplane.engine.batch.values import U64, is_signed, scalar_width
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
        """(body fn, [parameter column paths]) of an action, compiled once per block."""
        key = name
        hit = self.action_cache.get(key)
        if hit is not None:
            return hit
        action = self.find_action(name, node)
        saved = self.scope
        self.scope = dict(saved)
        paths = []
        for p in action.params:
            if p.direction not in ("", "in"):
                refuse(node, f"action '{name}' has an {p.direction} parameter '{p.name}'")
            scalar_width(p.type, action)
            path = f"A.{self.block_name}.{name}.{p.name}"
            self.scope[p.name] = path
            paths.append(path)
        try:
            body = self.stmt(action.body)
        finally:
            self.scope = saved
        self.action_cache[key] = (body, paths, action)
        return self.action_cache[key]

    def direct_action(self, name: str, call: E.Call):
        body, paths, action = self.compiled_action(name, call)
        values = [self.expr(a.value) for a in call.args]
        if len(values) != len(paths):
            refuse(call, f"call of action '{name}' with {len(values)} of {len(paths)} arguments")

        def run(st, act):
            for p, v in zip(paths, values):
                st.cols[p] = np.broadcast_to(np.asarray(v(st, act)), (st.n,))
            body(st, act)
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
                body(st, rows)
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
