"""Control-plane errors keep BMv2's code and their cause from the table to every caller: the Python
API (``ControlPlaneError.code``, ``__cause__``), runtime JSON and simple_switch_CLI files and STF
(``FILE:LINE: error [CODE]: ...``), and P4Runtime (the code's gRPC status)."""
from __future__ import annotations

from pathlib import Path

import pytest

from dataplane.control.config_errors import ConfigError, ControlPlaneError
from dataplane.control.loader import load_entries
from dataplane.control.switch import Switch
from dataplane.engine.table_errors import DuplicateEntryError, EntryNotFoundError
from dataplane.resources import builtin_program
from dataplane.testing.stf import load_stf
from dataplane.testing.stf_runner import run_stf

LPM = "MyIngress.ipv4_lpm"
MAC = "00:00:00:00:00:01"


@pytest.fixture
def sw() -> Switch:
    return Switch.from_file(builtin_program("ipv4_router"))


def _refused(call) -> ControlPlaneError:
    with pytest.raises(ControlPlaneError) as info:
        call()
    return info.value


def test_a_duplicate_entry_keeps_its_type_and_code(sw):
    sw.table_add(LPM, "ipv4_forward", ["10.0.0.1/32"], [MAC, 1])
    err = _refused(lambda: sw.table_add(LPM, "ipv4_forward", ["10.0.0.1/32"], [MAC, 2]))
    assert err.code == "DUPLICATE_ENTRY" and isinstance(err.__cause__, DuplicateEntryError)
    assert "already exists" in str(err)


@pytest.mark.parametrize("call, code", [
    (lambda sw: sw.table_add("MyIngress.nosuch", "drop"), "INVALID_TABLE_NAME"),
    (lambda sw: sw.table_add(LPM, "nosuch", ["10.0.0.2/32"]), "INVALID_ACTION_NAME"),
    (lambda sw: sw.table_add(LPM, "ipv4_forward", ["zz"], [MAC, 1]), "BAD_MATCH_KEY"),
    (lambda sw: sw.table_add(LPM, "ipv4_forward", ["10.0.0.3/32"], [MAC]), "BAD_ACTION_DATA"),
    (lambda sw: sw.table_add(LPM, "ipv4_forward", ["10.0.0.3/32"], [MAC, 999]), "BAD_ACTION_DATA"),
    (lambda sw: sw.table_delete(LPM, 42), "INVALID_HANDLE"),
    (lambda sw: sw.table_modify(LPM, 42, "drop"), "INVALID_HANDLE"),
])
def test_each_refusal_has_bmv2s_code(sw, call, code):
    err = _refused(lambda: call(sw))
    assert err.code == code, str(err)
    if code == "INVALID_HANDLE":
        assert isinstance(err.__cause__, EntryNotFoundError)


def test_runtime_and_cli_files_print_the_code_at_the_line(sw, tmp_path: Path):
    cmds = tmp_path / "s1-commands.txt"
    cmds.write_text(f"table_add ipv4_lpm ipv4_forward 10.0.0.0/8 => {MAC} 1\n"
                    f"table_add ipv4_lpm ipv4_forward 10.0.0.0/8 => {MAC} 2\n")
    with pytest.raises(ConfigError) as info:
        load_entries(sw, cmds)
    assert info.value.code == "DUPLICATE_ENTRY" and info.value.line == 2
    assert str(info.value).startswith(f"{cmds}:2: error [DUPLICATE_ENTRY]: ")


def test_stf_prints_the_code_at_the_line(sw, tmp_path: Path):
    stf = tmp_path / "t.stf"
    stf.write_text("add MyIngress.ipv4_lpm hdr.ipv4.dstAddr:0x0a000001/32 "
                   "MyIngress.ipv4_forward(dstAddr:1, port:1)\n"
                   "add MyIngress.ipv4_lpm hdr.ipv4.dstAddr:0x0a000001/32 "
                   "MyIngress.ipv4_forward(dstAddr:1, port:2)\n")
    with pytest.raises(ConfigError) as info:
        run_stf(sw, load_stf(str(stf)), str(stf))
    assert info.value.code == "DUPLICATE_ENTRY"
    assert str(info.value).startswith(f"{stf}:2: error [DUPLICATE_ENTRY]: ")


@pytest.mark.parametrize("code, status", [("DUPLICATE_ENTRY", "ALREADY_EXISTS"), ("INVALID_HANDLE", "NOT_FOUND"),
                                          ("TABLE_FULL", "RESOURCE_EXHAUSTED"), ("BAD_MATCH_KEY", "INVALID_ARGUMENT")])
def test_p4runtime_answers_the_status_of_the_code(code, status):
    pytest.importorskip("p4.v1.p4runtime_pb2")
    import grpc

    from dataplane.control.p4runtime.context import switch_call
    from dataplane.control.p4runtime.status import P4RuntimeError

    def refuse():
        raise ControlPlaneError("refused", code)
    with pytest.raises(P4RuntimeError) as info:
        switch_call(refuse)
    assert info.value.code == getattr(grpc.StatusCode, status) and info.value.message == "refused"
