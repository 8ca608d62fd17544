"""BMv2 hash and checksum algorithms (dataplane.engine.hashes).

Reference values are the published CRC check values (CRC catalogue, input
b"123456789"), the IPv4 header checksum example, and slow bit-by-bit ports of the
loops in BMv2's src/bm_sim/calculations.cpp written here for cross-checking.
"""
from __future__ import annotations

import random

import pytest

from dataplane.engine.hashes import (
    CRC16_DEFAULT,
    CRC32_DEFAULT,
    HASH_ALGORITHMS,
    CustomCrc,
    crc16,
    crc16_custom,
    crc32,
    crc32_custom,
    csum16,
    hash_fields,
    hash_function,
    hash_result,
    identity,
    pack_fields,
    random_hash,
    v1model_hash,
    xor16,
)

CHECK = b"123456789"


# --- slow reference models ---------------------------------------------------------

def ref_reflect(v: int, n: int) -> int:
    return int(format(v, f"0{n}b")[::-1], 2)


def ref_crc(data: bytes, width: int, poly: int, init: int, xor_out: int, refin: bool, refout: bool) -> int:
    """BMv2 ``crc_custom``: MSB-first register, input bytes optionally reflected, bit by bit."""
    mask = (1 << width) - 1
    reg = init
    for byte in data:
        b = ref_reflect(byte, 8) if refin else byte
        reg ^= b << (width - 8)
        for _ in range(8):
            reg = ((reg << 1) ^ poly) & mask if reg >> (width - 1) & 1 else (reg << 1) & mask
    return (ref_reflect(reg, width) if refout else reg) ^ xor_out


def ref_csum16(data: bytes) -> int:
    if len(data) % 2:
        data += b"\x00"
    s = 0
    for i in range(0, len(data), 2):
        s += (data[i] << 8) | data[i + 1]
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def ref_xor16(data: bytes) -> int:
    if len(data) % 2:
        data += b"\x00"
    r = 0
    for i in range(0, len(data), 2):
        r ^= (data[i] << 8) | data[i + 1]
    return r


def random_inputs(seed: int, count: int = 200, max_len: int = 70) -> list[bytes]:
    rng = random.Random(seed)
    out = [b"", b"\x00", b"\xff", b"\x80\x01"]
    out += [rng.randbytes(rng.randint(0, max_len)) for _ in range(count)]
    return out


# --- CRCs ------------------------------------------------------------------------------

def test_crc32_check_value():
    """BMv2 crc32 is the standard CRC-32: check value 0xCBF43926."""
    assert crc32(CHECK) == 0xCBF43926


def test_crc16_is_crc16_arc():
    """BMv2 crc16 is CRC-16/ARC (poly 0x8005 reflected, init 0, xor-out 0): check value 0xBB3D."""
    assert crc16(CHECK) == 0xBB3D
    assert crc16(b"") == 0


def test_custom_crc_defaults_are_bmv2_initial_configs():
    """Before configuration, crc16_custom/crc32_custom use the same parameters as crc16/crc32."""
    assert CRC16_DEFAULT.params == (16, 0x8005, 0x0000, 0x0000, True, True)
    assert CRC32_DEFAULT.params == (32, 0x04C11DB7, 0xFFFFFFFF, 0xFFFFFFFF, True, True)
    for data in random_inputs(1, 50):
        assert crc16_custom(data) == crc16(data) == CRC16_DEFAULT(data)
        assert crc32_custom(data) == crc32(data) == CRC32_DEFAULT(data)


@pytest.mark.parametrize("params, check", [
    ((16, 0x8005, 0x0000, 0x0000, True, True), 0xBB3D),      # CRC-16/ARC
    ((16, 0x8005, 0xFFFF, 0x0000, True, True), 0x4B37),      # CRC-16/MODBUS
    ((16, 0x1021, 0xFFFF, 0x0000, False, False), 0x29B1),    # CRC-16/IBM-3740 (CCITT-FALSE)
    ((16, 0x1021, 0x0000, 0x0000, False, False), 0x31C3),    # CRC-16/XMODEM
    ((16, 0x1021, 0xFFFF, 0xFFFF, False, False), 0xD64E),    # CRC-16/GENIBUS
    ((16, 0x1021, 0x0000, 0x0000, True, True), 0x2189),      # CRC-16/KERMIT
    ((16, 0x8005, 0x0000, 0x0000, False, False), 0xFEE8),    # CRC-16/UMTS (BUYPASS)
    ((32, 0x04C11DB7, 0xFFFFFFFF, 0xFFFFFFFF, True, True), 0xCBF43926),   # CRC-32
    ((32, 0x04C11DB7, 0xFFFFFFFF, 0xFFFFFFFF, False, False), 0xFC891918),  # CRC-32/BZIP2
    ((32, 0x04C11DB7, 0xFFFFFFFF, 0x00000000, False, False), 0x0376E6E7),  # CRC-32/MPEG-2
    ((32, 0x1EDC6F41, 0xFFFFFFFF, 0xFFFFFFFF, True, True), 0xE3069283),    # CRC-32C
    ((12, 0x80F, 0x000, 0x000, False, True), 0xDAF),          # CRC-12/UMTS: reflect-out only
])
def test_custom_crc_catalogue_check_values(params, check):
    """CustomCrc reproduces published check values, including mixed reflection."""
    assert CustomCrc(*params)(CHECK) == check
    assert ref_crc(CHECK, *params) == check


@pytest.mark.parametrize("params", [
    (16, 0x8005, 0x1234, 0x0F0F, True, False),
    (16, 0x8005, 0x1234, 0x0F0F, False, True),
    (16, 0x3D65, 0xBEEF, 0x0000, True, True),
    (16, 0x1021, 0x1D0F, 0x0000, False, False),
    (32, 0x04C11DB7, 0x12345678, 0x0, True, True),
    (32, 0x814141AB, 0x0, 0xFFFFFFFF, False, False),
    (32, 0x04C11DB7, 0xFFFFFFFF, 0xFFFFFFFF, True, False),
])
def test_custom_crc_matches_bmv2_loop(params):
    """CustomCrc equals a bit-by-bit port of BMv2's crc_custom, with init not bit-reversed."""
    crc = CustomCrc(*params)
    for data in random_inputs(2, 60):
        assert crc(data) == ref_crc(data, *params), data.hex()


def test_custom_crc_rejects_bad_parameters_and_is_immutable():
    """Parameters must fit the width; reconfiguring means building a new CustomCrc."""
    with pytest.raises(ValueError):
        CustomCrc(16, 0x18005)
    with pytest.raises(ValueError):
        CustomCrc(4, 0x3)
    crc = CustomCrc(16, 0x8005)
    with pytest.raises(AttributeError):
        crc.poly = 0x1021
    assert crc == CustomCrc(16, 0x8005, 0, 0, False, False)


# --- csum16, xor16, identity, random ---------------------------------------------------------

IPV4_HEADER = bytes.fromhex("45000073000040004011" "0000" "c0a80001c0a800c7")


def test_csum16_ipv4_header():
    """csum16 over an IPv4 header with a zeroed checksum field gives the header checksum 0xB861."""
    assert csum16(IPV4_HEADER) == 0xB861
    filled = IPV4_HEADER[:10] + (0xB861).to_bytes(2, "big") + IPV4_HEADER[12:]
    assert csum16(filled) == 0


def test_csum16_corner_cases():
    """One word w gives ~w; all-zero or empty input gives 0xFFFF; an odd tail byte is padded at the end."""
    assert csum16(b"\x12\x34") == 0xEDCB
    assert csum16(b"") == 0xFFFF
    assert csum16(bytes(20)) == 0xFFFF
    assert csum16(b"\xff\xff") == 0x0000
    assert csum16(b"\xff\xfe\x00\x01") == 0x0000
    assert csum16(b"\x01") == 0xFEFF
    assert csum16(b"\x12\x34\x56") == ~(0x1234 + 0x5600) & 0xFFFF


def test_csum16_matches_rfc1071_loop():
    """csum16 equals the RFC 1071 word loop on random inputs of every parity."""
    for data in random_inputs(3):
        assert csum16(data) == ref_csum16(data), data.hex()


def test_xor16():
    """xor16 XORs big-endian 16-bit words; an odd tail byte is the high byte of a last word."""
    assert xor16(b"\x12\x34\x56\x78") == 0x1234 ^ 0x5678
    assert xor16(b"\x12\x34\x56") == 0x1234 ^ 0x5600
    assert xor16(b"\xab") == 0xAB00
    assert xor16(b"") == 0
    for data in random_inputs(4):
        assert xor16(data) == ref_xor16(data), data.hex()


def test_identity_is_first_eight_bytes_big_endian():
    """identity reads at most the first 8 bytes, big-endian, without padding short input."""
    assert identity(b"\x01\x02") == 0x0102
    assert identity(bytes(range(1, 11))) == 0x0102030405060708
    assert identity(b"") == 0


def test_random_is_reproducible_with_a_seeded_rng():
    """random draws from the caller's RNG: same seed, same sequence; the data is ignored."""
    a = [random_hash(b"x", random.Random(7)) for _ in range(3)]
    fa = hash_function("random", rng=random.Random(7))
    fb = hash_function("random", rng=random.Random(7))
    assert [fa(b"a"), fa(b"b")] == [fb(b"zzz"), fb(b"")]
    assert a[0] == a[1] == random.Random(7).getrandbits(64)
    with pytest.raises(ValueError):
        hash_function("random")


def test_registry_names_and_resolution():
    """The registry is keyed by v1model HashAlgorithm names; hash_function resolves all eight."""
    assert set(HASH_ALGORITHMS) == {"crc16", "crc32", "crc16_custom", "crc32_custom", "csum16", "xor16", "identity"}
    for name in HASH_ALGORITHMS:
        assert hash_function(name)(CHECK) == HASH_ALGORITHMS[name](CHECK)
    custom = CustomCrc(16, 0x1021, 0xFFFF, 0, False, False)
    assert hash_function("crc16_custom", custom=custom)(CHECK) == 0x29B1
    with pytest.raises(ValueError):
        hash_function("crc32_custom", custom=custom)
    with pytest.raises(ValueError):
        hash_function("md5")


# --- field packing and the hash() rule ------------------------------------------------------

def test_pack_fields_concatenates_msb_first_and_pads_at_the_end():
    """Non-byte-aligned fields are concatenated bit by bit; the zero padding goes at the END."""
    assert pack_fields([(1, 1), (0, 2), (0b11, 2)]) == bytes([0b10011000])
    assert pack_fields([(0xABC, 12), (0xD, 4)]) == b"\xab\xcd"
    assert pack_fields([(0x1FF, 9), (0x7F, 7)]) == b"\xff\xff"
    assert pack_fields([(0x1, 9)]) == b"\x00\x80"
    assert pack_fields([(1, 16)]) == b"\x00\x01"
    assert pack_fields([(0x5, 3), (0xFF, 8)]) == bytes([0b10111111, 0b11100000])
    assert pack_fields([]) == b""


def test_pack_fields_truncates_values_to_their_width():
    """A value wider than its field keeps only its low bits."""
    assert pack_fields([(0x1FF, 8)]) == b"\xff"
    assert pack_fields([(0x3, 1), (0, 7)]) == b"\x80"


def test_hash_result_base_and_max_rule():
    """hash() gives base + H % max truncated to the result width; max 0 counts as 1."""
    assert hash_result(0xC0C1, 0, 4, 16) == 1
    assert hash_result(12345, 10, 0, 16) == 10
    assert hash_result(12345, 10, 1, 16) == 10
    assert hash_result(7, 0xFF, 100, 8) == (0xFF + 7) & 0xFF
    assert hash_result((1 << 64) - 2, 2, (1 << 64) - 1, 128) == 0  # uint64 wrap, as in BMv2
    assert hash_result(0xABCD, 0, 1 << 16, 16) == 0xABCD


def test_v1model_hash_matches_p4c_stf_example():
    """hash(crc16, base 0, {16w1}, max 4) = 0xC0C1 % 4 = 1 (p4c constant-in-calculation-bmv2.stf)."""
    assert hash_fields("crc16", [(1, 16)]) == 0xC0C1
    assert v1model_hash("crc16", 0, [(1, 16)], 4, 16) == 1


def test_hash_fields_on_unaligned_five_tuple():
    """hash_fields packs then hashes: a 9-bit port plus a 7-bit field hashes as the two bytes."""
    fields = [(0x101, 9), (0x55, 7)]
    packed = pack_fields(fields)
    assert packed == bytes([0b10000000, 0b11010101])
    for name in HASH_ALGORITHMS:
        assert hash_fields(name, fields) == HASH_ALGORITHMS[name](packed)
