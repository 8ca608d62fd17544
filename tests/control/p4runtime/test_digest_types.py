"""v1model digests reach the P4Info digest of their struct type (p4c names a v1model digest by
its type, as BMv2's learn lists), not the first one with as many fields."""
from __future__ import annotations

import pytest

pytest.importorskip("p4.config.v1.p4info_pb2")

from p4.v1 import p4runtime_pb2 as pb  # noqa: E402

from dataplane.control.p4info import build_p4info  # noqa: E402
from dataplane.control.p4runtime.context import PipelineState  # noqa: E402
from dataplane.control.p4runtime.digests import DigestQueue  # noqa: E402
from dataplane.control.switch import Switch  # noqa: E402
from dataplane.lang.frontend import compile_source  # noqa: E402
from dataplane.testing.skeleton import v1model_program  # noqa: E402

# Two digest types of two fields each, of the same widths: only their names tell them apart.
DECLS = "struct first_t { bit<8> a; bit<9> port; }\nstruct second_t { bit<8> b; bit<9> port; }\n"
INGRESS = """
    if (hdr.h.a == 1) { digest<first_t>(1, {hdr.h.a, sm.ingress_port}); }
    else if (hdr.h.a == 2) { digest<second_t>(1, {hdr.h.a, sm.ingress_port}); }
    else { digest(1, {hdr.h.a, sm.ingress_port}); }
"""
PARSER = "state start { pkt.extract(hdr.h); transition accept; }"


@pytest.fixture(scope="module")
def pipeline():
    program = compile_source(v1model_program(decls=DECLS, ingress=INGRESS, parser=PARSER), "d.p4").program
    switch = Switch(program)
    state = PipelineState(build_p4info(program), b"", 1, switch)
    return switch, state


def _digest_names(switch, state, x: int) -> list[str]:
    """Send a packet whose first byte is ``x`` (which digest ingress calls); the P4Info digests
    its values are queued under (each digest configured to send at once)."""
    switch.dp.digests.clear()
    queue = DigestQueue()
    for d in state.p4info.digests:
        state.digest_configs[d.preamble.id] = pb.DigestEntry.Config(max_list_size=1)
    switch.send(0, bytes([x]) + b"\x00" * 13)
    for receiver, values in switch.digests():
        queue.add(state, receiver, values)
    names = {d.preamble.id: d.preamble.name for d in state.p4info.digests}
    return [names[m.digest_id] for m in queue.due(state)]


def test_each_digest_type_reaches_its_own_p4info_digest(pipeline):
    """first_t and second_t have the same fields' widths; each call reaches its own digest, and
    the digest of a field list (digest_0) is still found by its fields."""
    switch, state = pipeline
    assert sorted(d.preamble.name for d in state.p4info.digests) == ["digest_0", "first_t", "second_t"]
    assert _digest_names(switch, state, 1) == ["first_t"]
    assert _digest_names(switch, state, 2) == ["second_t"]
    assert len(_digest_names(switch, state, 3)) == 1


def test_switch_digests_stay_plain_tuples(pipeline):
    """Switch.digests() gives (receiver, values) whose values compare as a tuple of the fields."""
    switch, _ = pipeline
    switch.dp.digests.clear()
    switch.send(5, bytes([2]) + b"\x00" * 13)
    assert switch.digests() == [(1, (2, 5))]
