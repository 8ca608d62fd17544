"""A ``Frame`` is the bytes its new header and the frame it came in make together: joined,
measured, compared, indexed and pickled as those bytes."""
from __future__ import annotations

import pickle

from dataplane.engine.decision.frame import Frame

BASE = bytes(range(64)) * 2          # 128 bytes: a header region of 20, a payload of 108
HEAD = b"\xaa" * 20


def test_join_puts_the_head_over_the_first_bytes_of_the_base():
    f = Frame(HEAD, BASE)
    expected = b"\xaa" * 20 + BASE[20:]
    assert f.join() == expected == bytes(f)
    assert len(f) == len(expected) == 128
    assert f[19] == 0xAA and f[20] == BASE[20] and f[-1] == BASE[-1]
    assert f[18:22] == b"\xaa\xaa" + BASE[20:22]


def test_a_frame_equals_its_bytes_and_no_others():
    f = Frame(HEAD, BASE)
    assert f == b"\xaa" * 20 + BASE[20:]
    assert f == Frame(b"\xaa" * 20, b"\x00" * 20 + BASE[20:])    # the base's first bytes do not count
    assert f != BASE
    assert f != b"\xaa" * 20 + BASE[20:-1]                          # one byte short
    assert hash(f) == hash(f.join())


def test_pickling_gives_plain_bytes():
    """What crosses to another rank (dataplane.net.parallel) is bytes, whatever reads it there."""
    got = pickle.loads(pickle.dumps(Frame(HEAD, BASE)))
    assert type(got) is bytes and got == b"\xaa" * 20 + BASE[20:]
