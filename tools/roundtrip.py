"""Round-trip every .p4 file of the repository through the printer (``dataplane.testing.roundtrip``):
compile, print as P4, compile the printed text, compare parse trees and program IR, spans aside.
Files that do not compile (error tests) are counted and left out. Prints one line per failure
and a summary; exits 1 if any round trip fails.

    python tools/roundtrip.py [FILE_OR_DIR ...]      # default: programs/ and tests/
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

from dataplane.errors import CompileError
from dataplane.testing.roundtrip import round_trip

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str]) -> int:
    roots = [Path(a) for a in argv] or [ROOT / "programs", ROOT / "tests"]
    files = sorted({f for r in roots for f in ([r] if r.is_file() else r.rglob("*.p4"))})
    held = failed = skipped = 0
    start = time.perf_counter()
    for f in files:
        try:
            problem = round_trip(f)
        except CompileError:
            skipped += 1
            continue
        if problem:
            failed += 1
            print(f"{f}: {problem[:400]}")
        else:
            held += 1
    print(f"{held} held, {failed} failed, {skipped} not compiling ({time.perf_counter() - start:.1f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
