"""dataplane.resources: the package's data and its own source files, found by where the package
is, whatever the folder it was cloned or installed into is called."""
from __future__ import annotations

from pathlib import Path

import dataplane.cli
import dataplane.net.core.units
from dataplane.resources import package_path


def test_package_path_names_the_package_s_own_files_from_dataplane():
    assert package_path(dataplane.cli.__file__) == "dataplane/cli/__init__.py"
    assert package_path(dataplane.net.core.units.__file__) == "dataplane/net/core/units.py"


def test_a_file_in_another_folder_called_dataplane_is_not_the_package_s():
    """A clone in a folder named ``dataplane`` holds tests, tools and maybe a venv whose paths all
    contain ``/dataplane/``: none of them is the package's code."""
    root = Path(dataplane.cli.__file__).resolve().parents[2]
    assert package_path(str(root / "tests" / "test_resources.py")) is None
    assert package_path("/tmp/x/dataplane/tests/cli/test_internal_errors.py") is None
    assert package_path("/home/u/dataplane/tools/conformance_load.py") is None
    assert package_path("<p4:basic.p4:MyIngress>") is None and package_path("<string>") is None

