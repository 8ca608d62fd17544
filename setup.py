"""Build hook: ship the top-level grammar/, programs/, topologies/ and jobs/ inside the wheel.

They live at the repository root so that users and editors find them there; a
non-editable install copies them under ``dataplane/_data/`` where
``dataplane.resources`` looks first.
"""
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

SHIPPED_DIRS = ("grammar", "programs", "topologies", "jobs")


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


setup(cmdclass={"build_py": BuildWithData})
