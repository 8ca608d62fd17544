"""``dataplane serve --ptf-socket``: an address NNG cannot listen on is a usage error, not a traceback."""
from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("grpc")
pytest.importorskip("pynng")


def test_a_ptf_address_that_cannot_be_listened_on_is_a_usage_error():
    r = subprocess.run([sys.executable, "-c", "from dataplane.cli import run; run()", "serve", "ipv4_router",
                        "--grpc-addr", "127.0.0.1:0", "--ptf-socket", "tcp://256.1.1.1:1"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    assert "cannot listen for PTF at tcp://256.1.1.1:1" in r.stderr and "Traceback" not in r.stderr
