"""The P4Runtime device config: the preprocessed program behind a one-line header."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from dataplane.cli import main
from dataplane.control.device_config import DeviceConfigError, make_device_config, parse_device_config
from dataplane.lang.frontend import compile_source

RT = Path(__file__).parent / "p4runtime" / "rt.p4"


def test_the_device_config_is_the_expanded_program_and_compiles_alone():
    fields, body = parse_device_config(make_device_config(RT))
    assert fields == {"format": "p4-preprocessed", "version": "1", "arch": "v1model", "source": "rt.p4"}
    assert "#include" not in body and "V1Switch(" in body
    assert "MyIngress" in compile_source(body, "<device config>").program.controls


def test_other_bytes_are_refused_with_a_hint():
    for bad in (b"\xff\xfe", b'{"json": 1}', b"// dataplane device config: format=bmv2-json version=1\n"):
        with pytest.raises(DeviceConfigError) as err:
            parse_device_config(bad)
        assert "device config" in str(err.value)


def test_compile_writes_it(tmp_path):
    out = tmp_path / "rt.bin"
    result = CliRunner().invoke(main, ["compile", str(RT), "--check", "--device-config", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == make_device_config(RT)
