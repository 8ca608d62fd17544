"""``compile --p4info`` where the p4runtime package is missing (PyPy): a clear error."""
from __future__ import annotations

import sys

from click.testing import CliRunner

from dataplane.cli import main
from dataplane.testing.skeleton import v1model_program


def test_p4info_without_the_package_says_what_is_missing(tmp_path, monkeypatch):
    prog = tmp_path / "p.p4"
    prog.write_text(v1model_program())
    monkeypatch.setitem(sys.modules, "dataplane.control.p4info", None)   # import fails as on PyPy
    result = CliRunner().invoke(main, ["compile", "--check", str(prog), "--p4info", str(tmp_path / "p.txtpb")])
    assert result.exit_code == 1
    assert "--p4info needs the 'p4runtime' package" in result.output
    assert not (tmp_path / "p.txtpb").exists()
