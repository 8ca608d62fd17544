"""The guard of a real-time run: removes its namespaces if the run dies without doing it.

``python -m dataplane.net.netns.guard STATE_FILE`` runs in a session of its own beside the
run, with a pipe from the run on its stdin. The run never writes to the pipe; when the run
ends, however it ends (exit, Ctrl-C, a crash, SIGKILL), the kernel closes the pipe and the
guard reads end-of-file. If the state file is still there, the run did not clean up: the guard
removes its namespaces, the processes in them and the file. (TAP devices need no guard: the
kernel removes them with the run's file descriptors.)
"""
from __future__ import annotations

import signal
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)     # Ctrl-C in the run's terminal is the run's
    path = Path(argv[1])
    while sys.stdin.buffer.read(4096):
        pass
    from dataplane.net.netns.state import NetnsError, read_state, remove_run

    try:
        state = read_state(path)
    except NetnsError:
        return 0          # the run cleaned up itself
    remove_run(state)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
