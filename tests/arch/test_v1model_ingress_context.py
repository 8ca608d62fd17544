"""The ingress pass builds its PacketContext slot by slot (no __init__ call, for speed).

It must set every slot, to what ``PacketContext(buf, sm, switch, trace, now)`` would: a
slot added to PacketContext and not to v1model's _ingress fails here, not on a packet.
"""
from __future__ import annotations

from dataplane.arch.v1model import NORMAL, PacketResult
from dataplane.arch.work import IngressWork
from dataplane.control.switch import Switch
from dataplane.engine.context import PacketContext
from dataplane.resources import builtin_program


def test_ingress_context_has_every_slot_as_init_sets_it():
    sw = Switch.from_file(builtin_program("ecmp_router"))
    sw.dp.now_us = 42
    data = bytes(14) + b"payload"  # not IPv4: dropped in ingress, the context is still built
    seen = []
    inner = sw.dp.blocks["p"]

    def parser(pkt, hdr, meta, sm, ctx):
        seen.append(ctx)
        for name in PacketContext.__slots__:
            getattr(ctx, name)  # AttributeError if _ingress left a slot unset
        expected = PacketContext(data, sm, sw.dp, None, 42)
        assert {n: getattr(ctx, n) for n in PacketContext.__slots__} == \
               {n: getattr(expected, n) for n in PacketContext.__slots__}
        return inner(pkt, hdr, meta, sm, ctx)

    sw.dp.blocks["p"] = parser
    sw.dp.run_work(IngressWork(1, data, NORMAL), PacketResult())
    assert len(seen) == 1 and type(seen[0]) is PacketContext
