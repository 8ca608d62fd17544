"""engine.batch.heap: arrays a batch makes and frees come back without new page faults."""
import subprocess
import sys

import pytest

from dataplane.engine.batch.heap import keep_freed_memory

# A chunk's pattern, 20 times over: ten column-sized arrays held while a batch-sized one comes
# and goes; printed, the page faults of the 20 after one to warm up.
_CHUNKS = """
import resource, sys
import numpy as np
from dataplane.engine.batch.heap import keep_freed_memory
if sys.argv[1] == "kept":
    assert keep_freed_memory()

def chunks(n):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(n):
        columns = [np.ones(160_000, dtype=np.uint8) for _ in range(10)]
        rows = np.ones(2_500_000, dtype=np.uint8)
        columns.append(np.ones(300_000, dtype=np.uint8))
        del rows, columns
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before

chunks(1)
print(chunks(20))
"""


def _faults(mode: str) -> int:
    done = subprocess.run([sys.executable, "-c", _CHUNKS, mode], capture_output=True, text=True, check=True)
    return int(done.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux") or sys.implementation.name != "cpython",
                    reason="glibc's mallopt, as CPython's numpy allocates")
def test_freed_arrays_are_reused_instead_of_faulted_in_again():
    assert keep_freed_memory() is True
    assert keep_freed_memory() is True       # once a process: a second call changes nothing
    # A fresh process each: a long one (pytest's) may have raised glibc's own thresholds.
    kept, default = _faults("kept"), _faults("default")
    assert kept < 50 and default > 200, (kept, default)
