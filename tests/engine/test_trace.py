from dataplane.engine.trace import Trace


class _Hdr:
    def __repr__(self) -> str:
        return "h_t(a=10, b=-3, ok=True, inner=s_t(c=255))"


def test_extracted_fields_print_in_hex_like_table_keys():
    t = Trace()
    t.extract("hdr.h", _Hdr())
    assert t.lines == ["    extracted hdr.h: h_t(a=0xa, b=-0x3, ok=True, inner=s_t(c=0xff))"]
