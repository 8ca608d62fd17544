"""eBPF externs on the kernel's and RFC 791's terms (dataplane.engine.ebpf_externs):

* a dense ``CounterArray`` of size N is an eBPF array map of N entries: indexes 0..N-1 exist,
  index N is out of range (the map update fails, so nothing is counted; the control plane's
  read is refused);
* ``ebpf_ipv4_checksum`` sums the header as it is on the wire, where the 3 flag bits sit
  above the 13-bit fragment offset.
"""
from __future__ import annotations

import pytest
from scapy.layers.inet import IP

from dataplane.engine import ebpf_externs as EX
from dataplane.engine.externs import ExternError


def test_a_dense_counter_array_ends_one_below_its_size():
    """Size 4: index 3 counts, index 4 (the size) and above do not, and reading 4 is refused."""
    c = EX.CounterArray("c", 4)
    for index in (0, 3, 4, 5, 3):
        c.increment(None, index)
    assert c.values == {0: 1, 3: 2}
    assert c.cp_read(3) == (2, 0)
    with pytest.raises(ExternError, match="index 4 is out of range"):
        c.cp_read(4)
    with pytest.raises(ExternError, match="index 4 is out of range"):
        c.cp_write(4, 1)


@pytest.mark.parametrize("flags, frag", [(0, 0), (2, 0), (1, 0x1FFF), (4, 1), (7, 0x0ABC)],
                         ids=["none", "DF", "MF_last_offset", "evil_bit", "all"])
def test_ipv4_checksum_places_the_flags_above_the_13_bit_offset(flags, frag):
    """The checksum of a header with these flags and fragment offset is the one scapy writes
    for the same header (built from the wire layout, not from the extern's arithmetic)."""
    pkt = IP(bytes(IP(version=4, ihl=5, tos=0x2E, len=1400, id=0xBEEF, flags=flags, frag=frag, ttl=61, proto=17,
                      src="10.1.2.3", dst="192.168.7.9")))
    assert (bytes(pkt)[6] >> 5, int.from_bytes(bytes(pkt)[6:8], "big") & 0x1FFF) == (flags, frag)
    got = EX.ipv4_checksum(None, 4, 5, 0x2E, 1400, 0xBEEF, flags, frag, 61, 17, 0x0A010203, 0xC0A80709)
    assert got == pkt.chksum
