"""Build hooks: ship the top-level grammar/, programs/, topologies/ and jobs/ inside the wheel,
and, with ``DATAPLANE_COMPILE=1`` on CPython, compile the simulator's hot modules with mypyc.

The data directories live at the repository root so that users and editors find them there; a
non-editable install copies them under ``dataplane/_data/`` where ``dataplane.resources`` looks
first. The compiled modules are those ``dataplane/compiled.py`` lists (read here without
importing the package); the build backend (``_build/backend.py``) adds mypy to the build's
requirements when the variable is set.
"""
import ast
import os
import platform
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

SHIPPED_DIRS = ("grammar", "programs", "topologies", "jobs")
#: set by _build/backend.py while setuptools runs this file to list the build's requirements
ASKING_REQUIREMENTS = "_DATAPLANE_BUILD_REQUIRES"


class BuildWithData(build_py):
    def run(self):
        super().run()
        root = Path(__file__).parent
        target = Path(self.build_lib) / "dataplane" / "_data"
        for name in SHIPPED_DIRS:
            src = root / name
            if src.is_dir():
                dst = target / name
                if dst.exists():
                    shutil.rmtree(dst)
                shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


def compiled_modules():
    """Extension modules for ``dataplane.compiled.MODULES``, or none unless asked for on CPython."""
    if os.environ.get("DATAPLANE_COMPILE", "") in ("", "0") or platform.python_implementation() != "CPython":
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        if os.environ.get(ASKING_REQUIREMENTS):
            return []      # the backend is asking what the build needs; it adds mypy itself
        raise SystemExit("DATAPLANE_COMPILE=1 compiles with mypyc, which comes with mypy: pip install mypy") from None

    source = Path(__file__).parent / "dataplane" / "compiled.py"
    names = next(ast.literal_eval(node.value) for node in ast.parse(source.read_text()).body
                 if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "MODULES")
    paths = [name.replace(".", "/") + ".py" for name in names]
    # the modules are checked as mypyc needs (every annotation holds at run time), not with the
    # project's lint settings (pyproject.toml's [tool.mypy] reports on the front end only)
    return mypycify(["--config-file", "", "--ignore-missing-imports", "--follow-imports", "silent", *paths],
                    opt_level="3")


setup(cmdclass={"build_py": BuildWithData}, ext_modules=compiled_modules())
