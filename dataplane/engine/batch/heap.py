"""Freed memory kept for the next batch: glibc's malloc told not to hand it back.

A batch's columns, masks and output rows are arrays of hundreds of kilobytes to megabytes,
made and freed once per chunk. With glibc's defaults, each such array is a fresh ``mmap``,
or the freed top of the heap goes back to the kernel, and the next chunk's arrays come as
new pages, zeroed by the kernel at one fault per page. Measured on the IPv4 router
(tools/bench_pps.py's 20,000 packets, one batch, CPython): 123,000 page faults and 15-17 ms
a batch with the defaults, 18,000 and 10-11 ms with the settings below. Raising only one
of the two thresholds does not help: both are needed.

The cost: a process that ran batches keeps up to ``TRIM_MB`` of freed heap at its top
instead of returning it (glibc's own adaptive rule goes as high for a process that frees
arrays of ``MMAP_MB``).
"""
from __future__ import annotations

import sys

MMAP_MB = 32     # M_MMAP_THRESHOLD: its largest value on 64-bit glibc; arrays below it come from the heap
TRIM_MB = 64     # M_TRIM_THRESHOLD: the heap's free top kept up to this

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_done = False


def keep_freed_memory() -> bool:
    """Set glibc's thresholds once per process (on Linux with glibc; elsewhere nothing): True if set."""
    global _done
    if _done:
        return True
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):     # a libc without mallopt (musl)
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    _done = bool(mallopt(_M_MMAP_THRESHOLD, MMAP_MB << 20)) and bool(mallopt(_M_TRIM_THRESHOLD, TRIM_MB << 20))
    return _done
