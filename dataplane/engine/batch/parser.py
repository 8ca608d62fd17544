"""The parser as masks per state: every packet sits in one state; each round runs every state
that holds packets, over those packets, and moves them along their transitions, until all
have reached ``accept`` or ``reject`` or stopped on an error (BMv2: the error goes to
``standard_metadata.parser_error`` and the packet goes on to ingress).

``extract`` gathers each packet's header bytes at its own offset and cuts them into
field columns; a packet too short gets ``PacketTooShort`` and stops where it was.
"""
from __future__ import annotations

import numpy as np

from dataplane.engine.batch.bits import bytes_to_words, field_from_words
from dataplane.engine.batch.refuse import refuse
from dataplane.engine.batch.values import U64, is_signed
from dataplane.ir import expr as E
from dataplane.ir import program as P
from dataplane.ir import types as T

MAX_ROUNDS = 1000


def gather(data: np.ndarray, pos: np.ndarray, rows: np.ndarray, nbytes: int) -> np.ndarray:
    """At least ``nbytes`` bytes (whole words of 8) of each packet from its offset ``pos``; rows
    outside ``rows``, and bytes past ``nbytes``, read anything."""
    n, width = data.shape
    span = max(8, (nbytes + 7) // 8 * 8)
    if width == 0:
        return np.zeros((n, span), dtype=np.uint8)
    p = pos[rows]
    if len(p) and p.min() == p.max():
        start = int(p[0])
        if start + span <= width:
            return data[:, start:start + span]
    idx = np.minimum(pos[:, None] + np.arange(span)[None, :], width - 1)
    return np.take_along_axis(data, idx, axis=1)




class ParserMixin:
    """Parser compilation for ``BlockCompiler``."""

    def compile_parser(self, parser: P.Parser):
        states = {}
        for name, state in parser.states.items():
            body = self.block(state.stmts)
            states[name] = (body, self.transition(state))
        error_code = self.sm_root + ".parser_error"

        def run(st):
            where = {"start": np.ones(st.n, dtype=bool)}
            for _ in range(MAX_ROUNDS):
                live = {s: m for s, m in where.items() if s not in ("accept", "reject") and m.any()}
                if not live:
                    return
                nxt: dict[str, np.ndarray] = {}
                for s, m in live.items():
                    body, trans = states[s]
                    st.exited = None
                    body(st, m)
                    if st.exited is not None:
                        m = m & ~st.exited
                    for target, rows in trans(st, m):
                        nxt[target] = nxt[target] | rows if target in nxt else rows
                where = nxt
            refuse(parser, f"parser {parser.name} still running after {MAX_ROUNDS} states")
        self.parser_error_path = error_code
        return run

    def transition(self, state: P.ParserState):
        if not state.select:
            target = state.next_state
            return lambda st, m: [(target, m)]
        keys = [self.expr(k) for k in state.select]
        cases = []
        for case in state.cases:
            if len(case.keysets) == 1 and isinstance(case.keysets[0], E.PathExpr):
                refuse(case.keysets[0], "parser value set in a select")
            conds = [self.keyset(ks) for ks in case.keysets]
            cases.append((conds, case.next_state))

        def run(st, m):
            vals = [k(st, m) for k in keys]
            left = m
            out = []
            for conds, target in cases:
                rows = left.copy()
                for c, v in zip(conds, vals):
                    if c is not None:
                        rows &= c(v)
                if rows.any():
                    out.append((target, rows))
                left = left & ~rows
                if not left.any():
                    break
            # No case matches: BMv2 ends the parse as if accepted, without an error.
            return out
        return run

    def keyset(self, ks: E.Expr):
        if isinstance(ks, E.DefaultKeyset) or isinstance(ks, E.DontCareExpr):
            return None
        if isinstance(ks, E.Mask):
            m = U64(ks.mask.value)
            v = U64(ks.value.value & ks.mask.value)
            return lambda x: (x & m) == v
        if isinstance(ks, E.Range):
            if is_signed(ks.lo.type):
                refuse(ks, "a range of signed values in a select")
            lo, hi = U64(ks.lo.value), U64(ks.hi.value)
            return lambda x: (x >= lo) & (x <= hi)
        value = self.expr(ks)(None, None)
        return lambda x: x == value

    # ---- packet_in -------------------------------------------------------------------------------
    def packet_in_call(self, call: E.Call):
        name = call.target.member
        errors = self.program.errors
        too_short = U64(errors.index("PacketTooShort"))
        err = self.sm_root + ".parser_error"
        if name == "extract":
            if len(call.args) != 1:
                refuse(call, "extract of a header with a varbit field")
            target = call.args[0].value
            t = T.strip_newtype(target.type)
            if not isinstance(t, T.Header):
                refuse(call, f"extract into {type(t).__name__}")
            layout = self.program.headers[t.name]
            if any(f.varbit for f in layout.fields):
                refuse(call, f"header {t.name} with a varbit field")
            base = self.path_of(target)
            nbytes = layout.width // 8
            fields = [(f"{base}.{f.name}", f.offset, f.width) for f in layout.fields]
            for f in layout.fields:
                ft = T.strip_newtype(P.field_type(t, f.name))
                if isinstance(ft, T.Bool):
                    refuse(call, f"header {t.name} field {f.name} of type {type(ft).__name__}")
            valid = base + ".$valid"

            def extract(st, act):
                ok = act & (st.pos + nbytes <= st.lengths)
                short = act & ~ok
                if short.any():
                    st.cols[err] = np.where(short, too_short, st.cols[err])
                    st.exited = short if st.exited is None else st.exited | short
                if not ok.any():
                    return
                everyone = ok.all()
                cols = st.cols
                start = int(st.pos[0])
                if everyone and (st.pos == start).all():
                    # One offset for every packet: the fields are read from the bytes when used.
                    for path, off, w in fields:
                        cols.defer(path, 8 * start + off, w)
                    st.origin[base] = start
                else:
                    words = bytes_to_words(gather(st.data, st.pos, ok, nbytes), nbytes)
                    for path, off, w in fields:
                        v = field_from_words(words, off, w)
                        cols.set_extracted(path, v if everyone else np.where(ok, v, cols[path]))
                        if everyone:
                            cols.written.discard(path)
                    at = st.origin.get(base, -1)
                    if isinstance(at, int):
                        at = np.full(st.n, at, dtype=np.int64)
                    st.origin[base] = np.where(ok, st.pos, at)
                dict.__setitem__(cols, valid, ok if everyone else cols[valid] | ok)
                st.pos = st.pos + nbytes if everyone else np.where(ok, st.pos + nbytes, st.pos)
            return extract
        if name == "advance":
            bits = self.expr(call.args[0].value)
            invalid = U64(errors.index("ParserInvalidArgument")) if "ParserInvalidArgument" in errors else too_short

            def advance(st, act):
                b = np.broadcast_to(bits(st, act), (st.n,)).astype(np.int64)
                bad_arg = act & (b % 8 != 0)
                end = st.pos + b // 8
                short = act & ~bad_arg & (end > st.lengths)
                ok = act & ~bad_arg & ~short
                st.cols[err] = np.where(bad_arg, invalid, np.where(short, too_short, st.cols[err]))
                stop = bad_arg | short
                if stop.any():
                    st.exited = stop if st.exited is None else st.exited | stop
                st.pos = np.where(ok, end, st.pos)
            return advance
        refuse(call, f"packet_in.{name}()")

    def lookahead(self, call: E.Call):
        refuse(call, "packet_in.lookahead()")
