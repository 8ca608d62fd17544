"""The decision cache's arithmetic: the IPv4 checksum of a header held as one big integer is
RFC 1071's, computed here word by word."""
from __future__ import annotations

import random

import pytest

from dataplane.engine.decision.cache import csum16_int


def rfc1071(data: bytes) -> int:
    s = 0
    for i in range(0, len(data), 2):
        s += int.from_bytes(data[i:i + 2], "big")
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


@pytest.mark.parametrize("words", [
    [0] * 10,                      # all zero: the sum is 0, its complement 0xFFFF
    [0xFFFF] + [0] * 9,            # a sum of 0xFFFF (a nonzero multiple of 0xFFFF): checksum 0
    [0xFFFE] + [0] * 9,            # one below
    [0x8000, 0x8000] + [0] * 8,    # 0x10000: the end-around carry gives 1
    [0x4500, 0x0073, 0x0000, 0x4000, 0x4011, 0x0000, 0xC0A8, 0x0001, 0xC0A8, 0x00C7],   # RFC 1071's example header
])
def test_csum16_of_an_integer_is_rfc_1071s(words):
    data = b"".join(w.to_bytes(2, "big") for w in words)
    assert csum16_int(int.from_bytes(data, "big")) == rfc1071(data)


def test_csum16_of_random_headers_is_rfc_1071s():
    rng = random.Random(3)
    for _ in range(2000):
        data = bytes(rng.randrange(256) for _ in range(20))
        assert csum16_int(int.from_bytes(data, "big")) == rfc1071(data)
