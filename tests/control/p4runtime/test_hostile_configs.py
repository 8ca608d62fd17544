"""SetForwardingPipelineConfig from a hostile client: the config reads no file but the bundled
architecture includes, and its compile is bounded in size, wall-clock time and memory, in a
child process that is gone when the limit passes, the client gives up or the server stops."""
from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

grpc = pytest.importorskip("grpc")  # no grpcio on PyPy
from p4.v1 import p4runtime_pb2  # noqa: E402

from dataplane.control.device_config import HEADER  # noqa: E402

from .conftest import RT_P4, load_p4info, rt_device_config  # noqa: E402

SECRET = "hostile_secret_line_0815"


def config(body: str, source: str = "x.p4") -> bytes:
    return f"{HEADER}format=p4-preprocessed version=1 arch=v1model source={source}\n{body}".encode()


def macro_bomb(doublings: int = 15, lines: int = 45) -> str:
    """A compile that runs for a minute or more: ``A15`` expands to 2^15 terms of ``1 + 1 + ...``
    on each of 45 lines, each line within the front end's macro limits (``lang/limits.py``, which
    refuse ``A40`` at once), 6 MB of tokens for the parser in all."""
    defs = ["#define A0 1"] + [f"#define A{i} A{i - 1} + A{i - 1}" for i in range(1, doublings + 1)]
    return "\n".join(defs) + "\n" + "".join(f"const bit<8> c{k} = A{doublings};\n" for k in range(lines))


def compile_children(parent: int | None = None) -> list[int]:
    """Pids of the compile child processes of ``parent`` (this process by default)."""
    parent = os.getpid() if parent is None else parent
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == parent and b"compile_child" in cmdline:
            found.append(int(entry.name))
    return found


def _refusal(client, device_config: bytes, timeout: float | None = None) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as info:
        client.set_pipeline(device_config=device_config) if timeout is None else \
            client.stub.SetForwardingPipelineConfig(_request(client, device_config), timeout=timeout)
    return info.value


def _request(client, device_config: bytes):
    Req = p4runtime_pb2.SetForwardingPipelineConfigRequest
    req = Req(action=Req.VERIFY_AND_COMMIT, device_id=client.device_id)
    req.election_id.high, req.election_id.low = client.election
    req.config.p4info.CopyFrom(load_p4info())
    req.config.p4_device_config = device_config
    return req


@pytest.fixture
def primary(start_server, connect):
    def make(**kwargs):
        server = start_server(**kwargs)
        client = connect(server)
        client.arbitrate()
        return server, client
    return make


def test_a_config_including_a_file_gets_nothing_of_it(primary, tmp_path, monkeypatch):
    """/etc/hostname, /proc/self/environ, a file in the server's working directory or next to
    it: each include is refused by name, the reply holds no byte of the file, and it reads the
    same whether the file exists or not."""
    secret = tmp_path / "secret.p4"
    secret.write_text(f"{SECRET} {SECRET};\n")
    monkeypatch.chdir(tmp_path)
    _, client = primary()
    hostname = Path("/etc/hostname").read_text().strip() if Path("/etc/hostname").exists() else ""
    for target in ("/etc/hostname", "/proc/self/environ", str(secret), "secret.p4", "../" * 10 + str(secret)[1:]):
        err = _refusal(client, config(f'#include "{target}"\n'))
        assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
        details = err.details()
        assert f'#include "{target}" is refused' in details
        assert SECRET not in details
        assert hostname not in details.splitlines()
        if len(hostname) >= 4:
            assert hostname not in details
        assert "USER=" not in details and "PATH=" not in details
    there = _refusal(client, config(f'#include "{secret}"\n')).details()
    absent = _refusal(client, config(f'#include "{tmp_path / "nothing.p4"}"\n')).details()
    assert there.replace(str(secret), "F") == absent.replace(str(tmp_path / "nothing.p4"), "F")


def test_bmv2_json_naming_a_file_reads_nothing(primary, tmp_path):
    """The other form the server takes, BMv2 JSON (p4c's, naming its source), is compared and
    never opened as a path: the reply says what to push and nothing of the file."""
    secret = tmp_path / "secret.p4"
    secret.write_text(f"{SECRET}\n")
    _, client = primary()
    doc = '{"__meta__": {"version": [2, 23]}, "program": "%s", "header_types": [], "pipelines": [],' \
          ' "sources": ["%s"]}' % (secret, secret)
    err = _refusal(client, doc.encode())
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and "BMv2 JSON" in err.details()
    assert SECRET not in err.details()


def test_a_macro_bomb_is_stopped_at_the_compile_limit_and_its_process_is_gone(primary, connect):
    """A config of macros that takes a minute to compile: RESOURCE_EXHAUSTED once --compile-timeout (2 s
    here) has passed, not before, and the child compiling it is killed; meanwhile the server
    answers other clients."""
    server, client = primary(compile_timeout=2.0)
    other = connect(server)
    started = time.monotonic()
    import threading

    result = {}
    pushed = threading.Thread(target=lambda: result.update(err=_refusal(client, config(macro_bomb()))))
    pushed.start()
    time.sleep(0.5)
    assert compile_children(), "the compile runs in a child process"
    for _ in range(20):     # unary calls of another client go on while the compile runs
        other.stub.Capabilities(p4runtime_pb2.CapabilitiesRequest(), timeout=1)
    pushed.join(timeout=10)
    took = time.monotonic() - started
    err = result["err"]
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "did not compile within 2 s" in err.details() and "--compile-timeout" in err.details()
    assert 2.0 <= took < 4.0, took
    assert compile_children() == []


def test_a_client_that_gives_up_takes_its_compile_with_it(primary):
    """The client's deadline passes (1 s) with the compile limit far off (60 s): the server
    kills the child within half a second, and the next push is served."""
    server, client = primary(compile_timeout=60.0)
    err = _refusal(client, config(macro_bomb()), timeout=1.0)
    assert err.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    end = time.monotonic() + 0.5
    while compile_children() and time.monotonic() < end:
        time.sleep(0.02)
    assert compile_children() == []
    client.set_pipeline()
    assert server.live.switch is not None


def test_a_config_over_the_size_limit_is_refused_unread(start_server, connect):
    """max_bytes is a limit on the device config's program text: one byte over is
    RESOURCE_EXHAUSTED at once, exactly at it compiles as usual."""
    from dataplane.control.p4runtime.compiler import BoundedCompiler

    body = rt_device_config().split(b"\n", 1)[1]
    compiler = BoundedCompiler(max_bytes=len(body))
    server = start_server(compiler=compiler)
    client = connect(server)
    client.arbitrate()
    client.set_pipeline()        # exactly at the limit
    head = rt_device_config().split(b"\n", 1)[0]
    started = time.monotonic()
    err = _refusal(client, head + b"\n" + body + b" ")
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert f"more than this server compiles ({len(body)} bytes)" in err.details()
    assert time.monotonic() - started < 1.0


def test_a_program_too_large_for_the_memory_limit_fails_in_the_child(start_server, connect):
    """A register of 2^27 cells (a gigabyte of Python list) under a 512 MiB limit: the child
    runs out, the reply says so, and the server never allocates it."""
    from dataplane.control.p4runtime.compiler import BoundedCompiler

    src = RT_P4.read_text().replace("\n    apply {", "\n    register<bit<32>>(32w134217728) huge;\n    apply {", 1)
    from dataplane.lang.preprocess.directives import preprocess

    body = preprocess(text=src, filename=str(RT_P4)).text
    server = start_server(compiler=BoundedCompiler(memory=512 << 20))
    client = connect(server)
    client.arbitrate()
    err = _refusal(client, config(body))
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and "memory limit of 512 MiB" in err.details()
    assert server.live.switch is None


def test_thousands_of_compile_errors_reach_the_client_cut_short(primary):
    """5,000 bad directives: the reply is INVALID_ARGUMENT with the first errors and a note of
    how much was left out, not a trailer too large for the client (gRPC's "Stream removed")."""
    _, client = primary()
    err = _refusal(client, config("".join(f"#bogus{i}\n" for i in range(5000))))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "unknown preprocessor directive '#bogus0'" in err.details()
    assert re.search(r"\.\.\. \(\d+ more characters left out\)$", err.details())


def test_the_same_bad_config_again_costs_no_second_compile(primary, monkeypatch):
    """A compile error is remembered by the config's text: pushing it again is answered with
    the same message without starting another child process."""
    import subprocess

    from dataplane.control.p4runtime import compiler as compiler_module

    started = []
    popen = subprocess.Popen
    monkeypatch.setattr(compiler_module.subprocess, "Popen", lambda *a, **k: started.append(a) or popen(*a, **k))
    _, client = primary(compile_timeout=30.0)
    bad = config("control c() { apply { x = ; } }\n")
    first = _refusal(client, bad).details()
    second = _refusal(client, bad).details()
    assert first == second and "does not compile" in first
    assert len(started) == 1
