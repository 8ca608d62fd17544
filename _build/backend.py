"""The build backend: setuptools', with mypy added to what a build needs when ``DATAPLANE_COMPILE``
asks setup.py to compile the simulator's hot modules (``dataplane/compiled.py``)."""
from __future__ import annotations

import os
import platform

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F401,F403  (every hook not redefined here)

#: mypyc comes with mypy; the version whose checks the compiled modules were written against
COMPILER = "mypy>=1.10"
ASKING_REQUIREMENTS = "_DATAPLANE_BUILD_REQUIRES"      # setup.py's name for it


def _compiling() -> bool:
    return os.environ.get("DATAPLANE_COMPILE", "") not in ("", "0") and platform.python_implementation() == "CPython"


def _with_compiler(hook, config_settings):
    # setuptools runs setup.py to answer, before mypy is installed: setup.py skips the compiling then
    os.environ[ASKING_REQUIREMENTS] = "1"
    try:
        return hook(config_settings) + ([COMPILER] if _compiling() else [])
    finally:
        del os.environ[ASKING_REQUIREMENTS]


def get_requires_for_build_wheel(config_settings=None):
    return _with_compiler(_setuptools.get_requires_for_build_wheel, config_settings)


def get_requires_for_build_editable(config_settings=None):
    return _with_compiler(_setuptools.get_requires_for_build_editable, config_settings)
