"""tests/test_compiled.py's background job, run in the copy of the tree it builds: the compiled
build (its output in ``build.log``, written by the caller, and its status in ``build.rc``), then,
where it built, the test files named as arguments, in one process that first checks that every
module of ``MODULES`` is compiled, so that the modules it checks are the ones the tests run
(``prove.log``, ``prove.rc``)."""
from __future__ import annotations

import os
import subprocess
import sys

CHECK_THEN_TEST = """
import sys, pytest
from dataplane.compiled import MODULES, compiled_modules
assert compiled_modules() == list(MODULES), compiled_modules()
sys.exit(pytest.main(["-p", "no:cacheprovider", "-q", "--no-header", *sys.argv[1:]]))
"""


def main(tests: list[str]) -> None:
    built = subprocess.call([sys.executable, "setup.py", "-q", "build_ext", "--inplace"],
                            env={**os.environ, "DATAPLANE_COMPILE": "1"})
    with open("build.rc", "w") as f:
        f.write(str(built))
    if built != 0:
        return
    with open("prove.log", "wb") as log:
        proved = subprocess.call([sys.executable, "-c", CHECK_THEN_TEST, *tests], stdout=log,
                                 stderr=subprocess.STDOUT)
    with open("prove.rc", "w") as f:
        f.write(str(proved))


if __name__ == "__main__":
    main(sys.argv[1:])
