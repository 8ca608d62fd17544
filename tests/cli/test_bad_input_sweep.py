"""Bad input of every kind issue 29 found, through the real command in a process of its own (a fork
of one that has imported the package, ``CommandForks``): each is
refused with an ``error:`` line and a status that is neither success (0) nor a bug (3), no
Python traceback, within the timeout, and leaves no ``--out`` folder behind.

The kinds: numbers out of range or too large for a float, more ranks than switches or CPUs, a
link from a node to itself, captures that are not Ethernet pcaps, MAC addresses of 400,000
digits, durations without a unit or past 2^32 s, and files of the wrong format. (In-process
sweeps of every file option are in ``test_bad_files``; values one by one in ``test_bad_values``.)
"""
from __future__ import annotations

import json
import os
import re
import struct
from pathlib import Path

import pytest

from dataplane.resources import available_cpus, builtin_program
from dataplane.testing.forks import CommandForks

pytestmark = pytest.mark.no_pypy  # one process per input: 70 s under PyPy, and not about the interpreter

TIMEOUT = 120
PACKET = "00" * 60
FRAME = bytes.fromhex("080000000111" "000000000001" "0800" "45000014000100004001000a" "c0000201" "0a000101")


def _files(root: Path) -> dict[str, str]:
    """Every bad file the cases use, written once into ``root``."""
    f: dict[str, str] = {}

    def put(name: str, data: str | bytes) -> None:
        path = root / name
        path.write_bytes(data if isinstance(data, bytes) else data.encode())
        f[name] = str(path)

    runtime = json.loads(builtin_program("ipv4_router").with_suffix(".json").read_text())
    params = runtime["table_entries"][1]["action_params"]
    params["dstAddr"] = "9" * 400_000
    put("mac_string.json", json.dumps(runtime, indent=1))
    put("mac_number.json", json.dumps(runtime, indent=1).replace('"' + "9" * 400_000 + '"', "9" * 400_000))
    put("mac.txt", f"table_add MyIngress.ipv4_lpm MyIngress.ipv4_forward 10.0.1.1/32 => {'9' * 400_000} 1\n")
    pcap_head = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 113)
    put("cooked.pcap", pcap_head + struct.pack("<IIII", 0, 0, len(FRAME), len(FRAME)) + FRAME)
    good = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1) + struct.pack("<IIII", 0, 0, 100, 100) + FRAME
    put("truncated.pcap", good)
    put("empty.pcap", b"")
    nodes = ("    s1: {kind: switch, program: ipv4_router}\n    s2: {kind: switch, program: ipv4_router}\n"
             "    h1: {kind: host, ip: 10.0.1.1/24}\n")
    put("self_link.yaml", "name: t\ntopology:\n  nodes:\n" + nodes +
        '  links:\n    - endpoints: ["s1:p1", "h1:eth0"]\n    - endpoints: ["s1:p2", "s1:p3"]\n')
    put("inf_latency.yaml", "name: t\ntopology:\n  nodes:\n" + nodes +
        '  links:\n    - endpoints: ["s1:p1", "h1:eth0"]\n    - {endpoints: ["s1:p2", "s2:p2"], latency: .inf}\n')
    put("huge_mtu.yaml", "name: t\ntopology:\n  nodes:\n" + nodes +
        '  links:\n    - endpoints: ["s1:p1", "h1:eth0"]\n    - {endpoints: ["s1:p2", "s2:p2"], mtu: ' + "9" * 5000 + "}\n")
    put("topology.json", json.dumps({"hosts": {"h1": {"ip": "10.0.1.1/24"}}, "switches": {"s1": {}, "s2": {}},
                                     "links": [["h1", "s2-p1"], ["s1-p1", "s1-p2"]]}))
    put("events.yaml", "- {at: 1e400s, node: spine1, state: down}\n")
    put("traffic.yaml", "- {app: udp, from: h1, to: h3, size: 70000}\n")
    names = [f"s{i}" for i in range(1, available_cpus() + 3)]
    put("line.yaml", "name: line\ntopology:\n  nodes:\n" +
        "".join(f"    {n}: {{kind: switch, program: ipv4_router}}\n" for n in names) + "  links:\n" +
        "".join(f'    - endpoints: ["{a}:p2", "{b}:p1"]\n' for a, b in zip(names, names[1:])))
    launcher = root / "mpiexec"
    launcher.write_text('#!/bin/sh\necho called >> "$SWEEP_MPIEXEC_LOG"\n')
    launcher.chmod(0o755)
    f["mpiexec"] = str(launcher)
    return f


# (name, arguments; "{x}" is a file above, "{out}" the case's --out folder, "{cpus}" the CPU count)
CASES = [
    # numbers
    ("duration past 2^32 s", ["run", "--duration", "1e309s", "--out", "{out}"]),
    ("duration of 4294967296 s", ["run", "--duration", "4294967296s", "--out", "{out}"]),
    ("duration without a unit", ["run", "--duration", "10", "--out", "{out}"]),
    ("duration nan", ["run", "--duration", "nans", "--out", "{out}"]),
    ("negative seed", ["run", "--seed", "-1", "--out", "{out}"]),
    ("seed of 2^64", ["run", "--seed", "18446744073709551616", "--out", "{out}"]),
    ("5000-digit seed", ["run", "--seed", "9" * 5000, "--out", "{out}"]),
    ("port past 9 bits", ["run-packet", "ipv4_router", "--port", "512", "--packet", PACKET, "--out", "{out}"]),
    ("a thousand jobs", ["run-packet", "ipv4_router", "--jobs", "1000", "--packet", PACKET, "--out", "{out}"]),
    ("loss nan", ["scenario", "allreduce", "--loss", "nan", "--out", "{out}"]),
    ("timeout inf", ["scenario", "allreduce", "--timeout", "inf", "--out", "{out}"]),
    ("256 leaves", ["topo", "leaf-spine", "--leaves", "256", "--out", "{out}"]),
    ("infinite latency", ["run", "{inf_latency.yaml}", "--out", "{out}"]),
    ("5000-digit mtu", ["run", "{huge_mtu.yaml}", "--out", "{out}"]),
    ("event past 2^32 s", ["run", "--events", "{events.yaml}", "--duration", "1us", "--out", "{out}"]),
    ("udp size past a datagram", ["run", "--traffic", "{traffic.yaml}", "--duration", "1us", "--out", "{out}"]),
    # ranks
    ("a thousand ranks", ["run", "--ranks", "1000", "--out", "{out}"]),
    ("more ranks than switches", ["run", "{line.yaml}", "--ranks", "{switches+1}", "--oversubscribe", "--out", "{out}"]),
    ("more ranks than cpus", ["run", "{line.yaml}", "--ranks", "{cpus+1}", "--out", "{out}"]),
    ("scenario ranks past the cpus", ["scenario", "incast", "--ranks", "{cpus+1}", "--out", "{out}"]),
    # self-links
    ("yaml self-link", ["run", "{self_link.yaml}", "--duration", "1us", "--out", "{out}"]),
    ("tutorial self-link", ["run", "{topology.json}", "--program", str(builtin_program("ipv4_router")),
                            "--duration", "1us", "--out", "{out}"]),
    # captures
    ("linux cooked capture", ["run-packet", "ipv4_router", "--pcap", "{cooked.pcap}", "--out", "{out}"]),
    ("truncated capture", ["run-packet", "ipv4_router", "--pcap", "{truncated.pcap}", "--out", "{out}"]),
    ("empty capture", ["run-packet", "ipv4_router", "--pcap", "{empty.pcap}", "--out", "{out}"]),
    # huge MACs
    ("400000-digit mac, json string", ["run-packet", "ipv4_router", "--entries", "{mac_string.json}",
                                       "--packet", PACKET, "--out", "{out}"]),
    ("400000-digit mac, json number", ["run-packet", "ipv4_router", "--entries", "{mac_number.json}",
                                       "--packet", PACKET, "--out", "{out}"]),
    ("400000-digit mac, cli file", ["run-packet", "ipv4_router", "--entries", "{mac.txt}",
                                    "--packet", PACKET, "--out", "{out}"]),
    # files in the wrong format
    ("capture as traffic", ["run", "--traffic", "{cooked.pcap}", "--duration", "1us", "--out", "{out}"]),
    ("capture as entries", ["run-packet", "ipv4_router", "--entries", "{cooked.pcap}", "--packet", PACKET,
                            "--out", "{out}"]),
    ("yaml as a capture", ["run-packet", "ipv4_router", "--pcap", "{self_link.yaml}", "--out", "{out}"]),
    ("runtime json as topology", ["run", "{mac_string.json}", "--out", "{out}"]),
    ("capture as events", ["run", "--events", "{truncated.pcap}", "--duration", "1us", "--out", "{out}"]),
    ("capture as an stf", ["test", "ipv4_router", "{cooked.pcap}"]),
]


@pytest.fixture(scope="module")
def forks():
    driver = CommandForks()
    yield driver
    driver.close()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return _files(tmp_path_factory.mktemp("bad"))


def _args(args: list[str], files: dict[str, str], out: Path) -> list[str]:
    cpus = available_cpus()
    subs = {"out": str(out), "cpus+1": str(cpus + 1), "switches+1": str(cpus + 3), **files}
    return [re.sub(r"\{([^}]+)\}", lambda m: subs.get(m.group(1), m.group(0)), a) for a in args]


@pytest.mark.parametrize("name,args", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_a_clear_error(tmp_path, forks, files, name, args):
    out = tmp_path / "new" / "out"
    env = {**os.environ, "DATAPLANE_MPIEXEC": files["mpiexec"], "SWEEP_MPIEXEC_LOG": str(tmp_path / "mpiexec.log")}
    proc = forks.run(_args(args, files, out), tmp_path, timeout=TIMEOUT, env=env)
    if proc.returncode is None:
        pytest.fail(f"{name}: still running after {TIMEOUT} s")
    said = proc.stdout + proc.stderr
    what = f"{name}: exit {proc.returncode}\n{said[:2000]}"
    assert proc.returncode not in (0, 3), what
    assert re.search(r"^(\S+: )?error( \[[A-Za-z_-]+\])?: ", said, re.M | re.I), what
    assert "Traceback" not in said and "internal error" not in said, what
    assert len(said) < 5000, what                  # a huge value is cut, not echoed whole
    assert not (tmp_path / "new").exists(), f"{name}: left {sorted(p.name for p in (tmp_path / 'new').rglob('*'))}"
    assert not (tmp_path / "mpiexec.log").exists(), f"{name}: mpiexec was started"


def test_the_sweep_covers_each_kind():
    kinds = " ".join(c[0] for c in CASES)
    for word in ("duration", "seed", "ranks", "self-link", "capture", "mac", "as topology", "port", "cpus"):
        assert word in kinds
