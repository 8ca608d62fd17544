"""The public API in dataplane/__init__.py, and the package docstrings."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import dataplane

PACKAGE = Path(dataplane.__file__).resolve().parent


def test_every_exported_name_resolves_to_what_its_module_defines():
    """Each name in __all__ loads lazily and is the very object of the module it names."""
    import importlib

    for name in dataplane.__all__:
        if name == "__version__":
            continue
        module = importlib.import_module(dataplane._EXPORTS[name])
        assert getattr(dataplane, name) is getattr(module, name), name


def test_import_dataplane_loads_no_subpackage():
    """import dataplane stays instant: the exports load on first use, not at import."""
    code = "import sys, dataplane; print(sorted(m for m in sys.modules if m.startswith('dataplane.')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_unknown_name_is_an_attribute_error():
    try:
        dataplane.no_such_thing  # noqa: B018
    except AttributeError as err:
        assert "no_such_thing" in str(err)
    else:
        raise AssertionError("dataplane.no_such_thing resolved")


def test_every_package_docstring_says_what_lives_there():
    """No placeholder docstrings ('engine layer.'): each package's says what its modules do."""
    for init in PACKAGE.rglob("__init__.py"):
        doc = ast.get_docstring(ast.parse(init.read_text())) or ""
        assert len(doc.split()) >= 12 and not doc.endswith(" layer."), f"{init.relative_to(PACKAGE.parent)}: {doc!r}"
