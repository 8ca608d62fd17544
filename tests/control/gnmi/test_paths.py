"""gNMI request paths against the counters' schema: wildcards select what they name, the spec's
codes for what is malformed or not implemented, and a path of many ``...`` costs its length, not
the ways of spreading them over the levels (a client cannot make the server search for minutes)."""
from __future__ import annotations

import time

import pytest

grpc = pytest.importorskip("grpc")
gnmi_pb2 = pytest.importorskip("pygnmi.spec.v080.gnmi_pb2")

from dataplane.control.gnmi.paths import MAX_ELEMS, GnmiError, ListNode, check_path, matches, request_elems  # noqa: E402
from dataplane.net.telemetry.counters import counter_schema  # noqa: E402

SCHEMA = counter_schema(ListNode)
LEAF = (("interfaces", ()), ("interface", (("name", "p1"),)), ("state", ()), ("counters", ()), ("out-octets", ()))


def _elems(*parts: str) -> tuple:
    return tuple((p, ()) for p in parts)


@pytest.mark.parametrize("req, selected", [
    (_elems("interfaces"), True),
    (_elems("interfaces", "interface", "state", "counters", "out-octets"), True),
    ((("interfaces", ()), ("interface", (("name", "p2"),))), False),
    ((("interfaces", ()), ("interface", (("name", "*"),)), ("*", ()), ("*", ()), ("out-octets", ())), True),
    (_elems("...", "out-octets"), True),
    (_elems("...", "in-octets"), False),
    (_elems("interfaces", "...", "counters"), True),
    (_elems("interfaces", "interface", "state", "counters", "out-octets", "more"), False),
])
def test_matches_selects_what_the_path_names(req, selected):
    """A path selects a leaf at or below it; ``*`` stands for one name or key, ``...`` for levels."""
    assert matches(req, LEAF) is selected


@pytest.mark.parametrize("path, code", [
    (gnmi_pb2.Path(element=["interfaces"]), grpc.StatusCode.INVALID_ARGUMENT),
    (gnmi_pb2.Path(elem=[gnmi_pb2.PathElem(name="")]), grpc.StatusCode.INVALID_ARGUMENT),
    (gnmi_pb2.Path(elem=[gnmi_pb2.PathElem(name="...", key={"a": "b"})]), grpc.StatusCode.INVALID_ARGUMENT),
    (gnmi_pb2.Path(origin="rfc7951", elem=[gnmi_pb2.PathElem(name="interfaces")]), grpc.StatusCode.UNIMPLEMENTED),
    (gnmi_pb2.Path(elem=[gnmi_pb2.PathElem(name="x")] * (MAX_ELEMS + 1)), grpc.StatusCode.INVALID_ARGUMENT),
])
def test_malformed_requests(path, code):
    """The string form, empty names, keys on ``...``, other origins, paths past MAX_ELEMS."""
    with pytest.raises(GnmiError) as info:
        check_path(request_elems(gnmi_pb2.Path(), path), SCHEMA)
    assert info.value.code == code


def test_many_ellipses_are_answered_at_once():
    """MAX_ELEMS elements of ``...`` then a name: checked and matched in well under a second."""
    start = time.monotonic()
    good = _elems(*["..."] * (MAX_ELEMS - 1), "out-octets")
    check_path(good, SCHEMA)
    assert matches(good, LEAF)
    bad = _elems(*["..."] * (MAX_ELEMS - 1), "nothing")
    with pytest.raises(GnmiError) as info:
        check_path(bad, SCHEMA)
    assert info.value.code == grpc.StatusCode.UNIMPLEMENTED and not matches(bad, LEAF)
    assert time.monotonic() - start < 1.0
