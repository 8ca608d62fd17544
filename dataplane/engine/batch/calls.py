"""Calls: header methods, table applies, actions, and the v1model extern functions and methods
the batch engine vectorises (``mark_to_drop``, csum16 ``verify_checksum``/``update_checksum``,
``counter.count``, ``direct_counter.count``). Any other extern is refused by name.
"""
from __future__ import annotations

import numpy as np

from dataplane.engine.batch.checksums import ALGORITHMS, csum16_columns, csum16_plan, hash_columns
from dataplane.engine.batch.refuse import refuse
from dataplane.engine.batch.values import U64, mask
from dataplane.ir import expr as E
from dataplane.ir import types as T

DROP_PORT = 511


class CallMixin:
    """Call compilation for ``BlockCompiler``."""

    def call_stmt(self, call: E.Call):
        target = call.target
        if isinstance(target, E.Member):
            bt = T.strip_newtype(target.expr.type) if target.expr is not None else None
            if isinstance(bt, T.Header) and target.member in ("setValid", "setInvalid"):
                path = self.path_of(target.expr)
                names = [p for p, _ in self.header_leaves(target.expr)]
                if target.member == "setInvalid":
                    def set_invalid(st, act):
                        st.cols[path + ".$valid"] = st.cols[path + ".$valid"] & ~act
                    return set_invalid

                def set_valid(st, act):
                    # A header made valid from invalid starts with its fields zero (HeaderOps.set_valid).
                    fresh = act & ~st.cols[path + ".$valid"]
                    for p in names[1:]:
                        st.cols[p] = np.where(fresh, U64(0), st.cols[p])
                    st.cols[path + ".$valid"] = st.cols[path + ".$valid"] | act
                return set_valid
            if isinstance(target.expr, E.PathExpr) and target.member == "apply" and target.expr.ref == "table":
                apply, _ = self.table_apply(target.expr.name, call)
                return lambda st, act: (apply(st, act), None)[1]
            inst = self.instance_of(target.expr)
            if inst is not None:
                return self.extern_method(inst, target.member, call)
        if isinstance(target, E.PathExpr):
            if target.ref == "action":
                return self.direct_action(target.name, call)
            if target.ref == "extern_function":
                return self.extern_function(target.name, call)
            if target.ref == "function":
                f = self.function_call(call)
                return lambda st, act: (f(st, act), None)[1]
        fn = self.call_expr(call)
        return lambda st, act: (fn(st, act), None)[1]

    def call_expr(self, call: E.Call):
        target = call.target
        if isinstance(target, E.PathExpr) and target.ref == "function":
            return self.function_call(call)
        if isinstance(target, E.Member) and target.member == "isValid":
            bt = T.strip_newtype(target.expr.type)
            if isinstance(bt, T.Header):
                path = self.path_of(target.expr) + ".$valid"
                return lambda st, act: st.cols[path]
        name = getattr(target, "member", None) or getattr(target, "name", "?")
        refuse(call, f"call of '{name}'")

    def header_leaves(self, e):
        from dataplane.engine.batch.values import leaves
        return leaves(e.type, self.path_of(e), e)

    # ---- extern functions ---------------------------------------------------------------------------
    def extern_function(self, name: str, call: E.Call):
        args = [a.value for a in call.args]
        if name == "mark_to_drop":
            sm = self.path_of(args[0]) if args else self.sm_root
            spec, grp = sm + ".egress_spec", sm + ".mcast_grp"

            def mark_to_drop(st, act):
                st.cols[spec] = np.where(act, U64(DROP_PORT), st.cols[spec])
                st.cols[grp] = np.where(act, U64(0), st.cols[grp])
            return mark_to_drop
        if name in ("verify_checksum", "update_checksum"):
            return self.checksum_call(name, call, args)
        if name == "hash":
            return self.hash_call(call, args)
        refuse(call, f"extern function {name}() (no batch form)")

    def checksum_call(self, name: str, call: E.Call, args):
        algo = args[3]
        if not (isinstance(algo, E.TypeMember) and algo.member == "csum16"):
            refuse(call, f"{name}() with algorithm {getattr(algo, 'member', '?')} (only csum16 is vectorised)")
        cond = self.expr(args[0])
        data = self.field_list(args[1], call)
        plan = csum16_plan(data, self.field_places(args[1]))
        checksum = plan if plan is not None else (lambda st: csum16_columns(st, data))
        ck = args[2]
        ck_path = self.path_of(ck)
        width = self.width(ck)
        ck_valid = (self.path_of(ck.expr) + ".$valid"
                    if isinstance(ck, E.Member) and isinstance(T.strip_newtype(ck.expr.type), T.Header) else None)

        if name == "verify_checksum":
            err = self.sm_root + ".checksum_error"

            def verify(st, act):
                c = act & cond(st, act)
                if ck_valid is not None:
                    c &= st.cols[ck_valid]
                bad = c & (checksum(st) != st.cols[ck_path])
                st.cols[err] = np.where(bad, U64(1), st.cols[err])
            return verify
        m = U64(mask(width))

        def update(st, act):
            c = act & cond(st, act)
            st.cols[ck_path] = np.where(c, checksum(st) & m, st.cols[ck_path])
        return update

    def hash_call(self, call: E.Call, args):
        """``hash(result, algo, base, data, max)``: base + h % max in uint64, cut to the result's width."""
        result, algo, base, data, limit = args
        if not (isinstance(algo, E.TypeMember) and algo.member in ALGORITHMS):
            refuse(call, f"hash() with algorithm {getattr(algo, 'member', 'chosen at run time')}")
        if isinstance(result, E.Slice):
            refuse(call, "hash() into a slice")
        path = self.path_of(result)
        m = U64(mask(self.width(result)))
        base_fn, max_fn = self.expr(base), self.expr(limit)
        fields = self.field_list(data, call)
        member = algo.member

        def run(st, act):
            h = hash_columns(st, fields, member)
            mx = np.asarray(max_fn(st, act), dtype=U64)
            mx = np.where(mx == 0, U64(1), mx)
            v = (np.asarray(base_fn(st, act), dtype=U64) + h % mx) & m
            st.cols[path] = np.where(act, v, st.cols[path])
        return run

    def field_list(self, e: E.Expr, node):
        """[(value fn, width, validity column or None)] of a field list, in order."""
        if isinstance(e, E.ListExpr):
            items = list(e.elements)
        elif isinstance(T.strip_newtype(e.type), T.StructLike):
            items = [e]
        else:
            items = [e]
        out = []
        for item in items:
            t = T.strip_newtype(item.type)
            if isinstance(t, T.StructLike):
                from dataplane.engine.batch.values import leaves
                base = self.path_of(item)
                valid = base + ".$valid" if isinstance(t, T.Header) else None
                for p, lt in leaves(item.type, base, item):
                    if p.endswith(".$valid"):
                        continue
                    w = 1 if isinstance(T.strip_newtype(lt), T.Bool) else self.width_of_type(lt, item)
                    out.append((_col(p), w, valid))
                continue
            valid = None
            if isinstance(item, E.Member) and isinstance(T.strip_newtype(item.expr.type), T.Header):
                valid = self.path_of(item.expr) + ".$valid"
            w = 1 if isinstance(t, T.Bool) else self.width(item)
            out.append((self.expr(item), w, valid))
        return out

    def field_places(self, e: E.Expr) -> list:
        """Per field of ``field_list(e)``: (header path, bit offset in the header, column path)
        for a header's field, else None."""
        from dataplane.engine.batch.values import leaves
        items = list(e.elements) if isinstance(e, E.ListExpr) else [e]
        out: list = []
        for item in items:
            t = T.strip_newtype(item.type)
            if isinstance(t, T.Header):
                base = self.path_of(item)
                offsets = {f.name: f.offset for f in self.program.headers[t.name].fields}
                out += [(base, offsets[p[len(base) + 1:]], p) for p, _ in leaves(item.type, base, item)
                        if not p.endswith(".$valid")]
            elif isinstance(t, T.StructLike):
                out += [None] * sum(1 for p, _ in leaves(item.type, self.path_of(item), item) if not p.endswith(".$valid"))
            elif isinstance(item, E.Member) and isinstance(T.strip_newtype(item.expr.type), T.Header):
                ht = T.strip_newtype(item.expr.type)
                offsets = {f.name: f.offset for f in self.program.headers[ht.name].fields}
                out.append((self.path_of(item.expr), offsets[item.member], self.path_of(item)))
            else:
                out.append(None)
        return out

    def width_of_type(self, t, node) -> int:
        from dataplane.engine.batch.values import scalar_width
        return scalar_width(t, node)

    # ---- extern methods -----------------------------------------------------------------------------
    def instance_of(self, e):
        if not isinstance(e, E.PathExpr):
            return None
        return self.instances.get(e.name)

    def extern_method(self, inst, method: str, call: E.Call):
        kind = type(inst).__name__
        if kind == "Counter" and method == "count":
            index = self.expr(call.args[0].value)
            size = inst.size

            def count(st, act):
                idx = np.broadcast_to(index(st, act), (st.n,)).astype(np.int64)
                rows = act & (idx < size)
                if not rows.any():
                    return
                packets = np.bincount(idx[rows], minlength=size)
                nbytes = np.bincount(idx[rows], weights=st.packet_length[rows], minlength=size)
                for i in np.flatnonzero(packets).tolist():
                    inst.packets[i] += int(packets[i])
                    inst.bytes[i] += int(nbytes[i])
            return count
        if kind == "DirectCounter" and method == "count":
            return lambda st, act: None   # the table counts its hits (DirectCounter.count does nothing)
        refuse(call, f"extern method {kind}.{method}() (not vectorised; "
                     f"{'order-dependent state' if kind in ('Register', 'Meter', 'DirectMeter') else 'no batch form'})")


def _col(path):
    return lambda st, act: st.cols[path]
