"""The controller launcher (``python -m dataplane.control.p4runtime.p4config``) and the install
extra for the P4 tutorials' controllers: a controller that stops on p4runtime-shell is told to
install ``dataplane[controllers]``, which brings it; one that stops on the tutorials' own
``p4runtime_lib`` is told where that lives."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("google.protobuf")      # the launcher builds PI's message with protobuf: none on PyPy

ROOT = Path(__file__).resolve().parents[3]


def _launch(tmp_path: Path, source: str) -> subprocess.CompletedProcess:
    script = tmp_path / "mycontroller.py"
    script.write_text(source)
    return subprocess.run([sys.executable, "-m", "dataplane.control.p4runtime.p4config", str(script)],
                          capture_output=True, text=True, timeout=60)


def test_a_controller_without_p4runtime_shell_is_told_the_extra_that_brings_it(tmp_path):
    # as if p4runtime-shell were not installed: the import stops where flowcache's controller's does
    r = _launch(tmp_path, "import sys\nsys.modules['p4runtime_sh'] = None\nimport p4runtime_sh.p4runtime as shp4rt\n")
    assert r.returncode == 1
    assert "no module 'p4runtime_sh.p4runtime'; it comes with p4runtime-shell" in r.stderr
    assert "pip install 'dataplane[controllers]'" in r.stderr
    assert "Traceback" in r.stderr             # the controller's own traceback still follows


def test_a_controller_without_the_tutorials_library_is_told_where_it_is(tmp_path):
    r = _launch(tmp_path, "import p4runtime_lib.bmv2\n")
    assert r.returncode == 1 and "PYTHONPATH=TUTORIALS/utils" in r.stderr


def test_the_controllers_extra_brings_p4runtime_shell_and_the_documentation_says_so():
    tomllib = pytest.importorskip("tomllib")      # Python 3.11+
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert any(req.startswith("p4runtime-shell") for req in extras["controllers"])
    page = (ROOT / "docs" / "tutorials.md").read_text()
    tutorials = page[page.index("The P4 tutorials' own controllers run unchanged"):]
    assert "pip install '.[controllers]'" in tutorials[:3000]
    # and what it brings is what the controllers import
    import p4runtime_sh.p4runtime  # noqa: F401
