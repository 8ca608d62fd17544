"""Program faults triggered by packets drop that packet with a reason; the switch keeps running."""
from __future__ import annotations

from pathlib import Path

from dataplane.control.switch import Switch

HERE = Path(__file__).parent


def test_failed_assert_drops_the_packet_and_says_why():
    """assert(false) for one packet drops it; the next packet is forwarded as usual."""
    sw = Switch.from_file(HERE / "assert_prog.p4")
    bad = sw.process(0, b"\x07")
    assert bad.outputs == [] and bad.drops == ["assert() failed in switch s1; packet dropped"]
    good = sw.process(0, b"\x08")
    assert [(o.port, o.data) for o in good.outputs] == [(1, b"\x08")]
