"""PSA's ingress pass builds its PsaContext inline, slot by slot (one call less per packet).

It must set every slot (PacketContext's and PsaContext's own) to what ``_context`` sets for the
same packet: a slot added to one of the two copies and not the other fails here.
"""
from __future__ import annotations

from dataplane.arch.psa import NORMAL, PsaContext
from dataplane.arch.v1model import PacketResult
from dataplane.control.switch import Switch
from dataplane.resources import builtin_program

SLOTS = [n for cls in PsaContext.__mro__ for n in getattr(cls, "__slots__", ())]


def test_inline_ingress_context_equals_the_context_method():
    sw = Switch.from_file(builtin_program("psa_router"))
    sw.dp.now_us = 42
    data = bytes(14) + b"payload"
    seen = []
    inner = sw.dp.blocks["ingress.ip"]

    def parser(pkt, hdr, meta, pin, resub, recirc, ctx):
        expected = sw.dp._context(data, ctx.sm, None, 42, 3)
        seen.append(({n: getattr(ctx, n) for n in SLOTS}, {n: getattr(expected, n) for n in SLOTS}))
        return inner(pkt, hdr, meta, pin, resub, recirc, ctx)

    sw.dp.blocks["ingress.ip"] = parser
    sw.dp._ingress(3, data, NORMAL, None, 0, PacketResult(), None)
    [(inline, method)] = seen
    assert inline == method
