"""PSA externs (engine/psa_externs.py) against independent models of what psa_switch does."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from dataplane.engine.psa_externs import PSA_COLOR, PsaChecksum, PsaHash, PsaInternetChecksum, PsaRegister


def _ones_complement_sum(x: int, y: int) -> int:
    r = x + y
    return (r & 0xFFFF) + (r >> 16)


def _word_by_word(state: int, value: int, subtract: bool) -> int:
    """psa_switch's loop: 16 bits at a time from the least significant end while the rest is not 0."""
    while value:
        word = value & 0xFFFF
        state = _ones_complement_sum(state, (~word & 0xFFFF) if subtract else word)
        value >>= 16
    return state


widths = st.sampled_from([8, 12, 16, 24, 32, 48, 144, 160])


@settings(max_examples=500, deadline=None)
@given(state=st.one_of(st.just(0), st.just(0xFFFF), st.integers(0, 0xFFFF)), width=widths, data=st.data())
def test_internet_checksum_folds_like_the_word_by_word_loop(state, width, data):
    """add/subtract computed at once (mod 0xFFFF) equal psa_switch's word loop, 0 and 0xFFFF included."""
    value = data.draw(st.one_of(st.just(0), st.just((1 << width) - 1), st.integers(0, (1 << width) - 1)))
    ck = PsaInternetChecksum("ck")
    for subtract in (False, True):
        ck.state = state
        (ck.subtract if subtract else ck.add)(None, (value, width))
        assert ck.state == _word_by_word(state, value, subtract)


def test_internet_checksum_of_an_ipv4_header_and_its_incremental_update():
    header = bytes.fromhex("450000730000400040110000c0a80001c0a800c7")   # checksum field zeroed
    ck = PsaInternetChecksum("ck")
    ck.add(None, (int.from_bytes(header, "big"), 160))
    assert ck.get(None) == 0xB861
    ck.clear(None)
    ck.subtract(None, (0xB861, 16))
    ck.subtract(None, (0x4011, 16))
    ck.add(None, (0x3F11, 16))
    assert ck.get(None) == 0xB961


def test_data_may_also_come_as_triples_with_every_field_counted():
    """A field list with a varbit field arrives as (valid, value, width) triples; psa_switch
    concatenates every field, whether or not its header is valid."""
    h = PsaHash("h", "IDENTITY", 32)
    assert h.get_hash(None, ((True, 0x12, 8), (False, 0x34, 8))) == 0x1234
    assert h.get_hash(None, (0x1234, 16)) == 0x1234


def test_hash_pads_on_the_left_and_takes_base_plus_modulo():
    h = PsaHash("h", "CRC16", 16)
    assert h.get_hash(None, (0x456, 12)) == 0xFE82        # bytes 04 56 (p4c's hash-extern-bmv2 sample)
    crc32 = PsaHash("h", "CRC32", 32)
    assert crc32.get_hash(None, 100, (int.from_bytes(b"123456789", "big"), 72), 1000) == 100 + 0xCBF43926 % 1000
    assert crc32.get_hash(None, 7, (1, 8), 0) == 7           # max 0 counts as 1, as for v1model's hash


def test_checksum_hashes_only_its_last_update_in_its_fewest_bytes():
    ck = PsaChecksum("c", "CRC16", 16)
    ck.update(None, (0xFFFF, 16))
    ck.update(None, (int.from_bytes(b"\x00123456789", "big"), 80))
    assert ck.get(None) == 0xBB3D
    ck.clear(None)
    assert ck.get(None) == 0


def test_register_initial_value_and_reset():
    r = PsaRegister("r", 3, 9, 8)          # Register<bit<8>, _>(3, 9)
    assert r.values == [9, 9, 9]
    r.write(None, 1, 0x1FF)
    assert r.read(None, 1) == 0xFF and r.read(None, 3) == 0
    r.reset()
    assert r.values == [9, 9, 9]
    assert PsaRegister("r", 2, 32).values == [0, 0]


def test_meter_colours_map_bmv2_numbers_to_psa_order():
    """BMv2 GREEN, YELLOW, RED (0, 1, 2) are PSA_MeterColor_t GREEN, YELLOW, RED (1, 2, 0)."""
    assert PSA_COLOR == (1, 2, 0)
