"""The process a pushed device config is compiled in (``compiler.BoundedCompiler`` starts it).

``python -m dataplane.control.p4runtime.compile_child MEMORY_BYTES CPU_SECONDS`` caps its own
address space and CPU time (a backstop: the parent kills it at the wall-clock limit), reads one
job from stdin (a pickle of ``{"text", "source"}``), compiles the text sandboxed (no file but
the bundled architecture includes), loads it as a switch would (so a program whose tables or
registers exhaust the memory limit fails here, not in the server) and writes one pickled
answer to stdout: ``("ok", program)`` or ``("error", message)``. It imports neither grpc nor
the server: it starts as fast as the front end imports.
"""
from __future__ import annotations

import pickle
import resource
import sys


def _limit(kind: int, value: int) -> None:
    soft, hard = resource.getrlimit(kind)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    try:
        resource.setrlimit(kind, (value, hard))
    except (ValueError, OSError):   # a hard limit below ours already bounds the child
        pass


def _compile(job: dict) -> tuple:
    from dataplane.control.switch import Switch
    from dataplane.errors import CompileError, DataplaneError
    from dataplane.lang.frontend import compile_source

    try:
        program = compile_source(job["text"], job["source"], sandboxed=True).program
    except CompileError as err:
        return ("error", f"the device config does not compile:\n{err.render()}")
    arch = getattr(program, "architecture", "v1model")
    try:
        Switch(program, name="check")
    except DataplaneError as err:
        return ("error", f"the device config cannot be loaded: {err}")
    except MemoryError:
        raise
    except Exception as err:   # an engine limitation on an unusual program: the parent says so
        return ("internal", f"the emulator cannot load this {arch} program ({type(err).__name__}: {err})")
    return ("ok", program)


def main(argv: list[str]) -> int:
    memory, cpu = int(argv[0]), int(argv[1])
    _limit(resource.RLIMIT_AS, memory)
    _limit(resource.RLIMIT_CPU, cpu)
    job = pickle.load(sys.stdin.buffer)
    try:
        answer = _compile(job)
    except MemoryError:
        answer = ("limit", f"the compile needed more than the server's memory limit of {memory >> 20} MiB")
    except RecursionError:
        answer = ("error", "the device config nests too deeply to compile")
    try:
        data = pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as err:   # something in the IR does not pickle: the parent compiles nothing itself
        data = pickle.dumps(("internal", f"the compiled program cannot be handed to the server ({err})"))
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
