"""``dataplane run --serve``: every switch also serves gNMI. pygnmi, the real client, subscribes
to leaf2 of a leaf-spine (PFC on) while three hosts send into h3 on loopback: a STREAM with
SAMPLE for the interface counters and ON_CHANGE for queue depths and pause frames, and a POLL.
The last values it receives are the run's ``--json`` ``ports`` counters at the end; the samples
come at their interval of simulated time. Skipped where grpc, protobuf or pygnmi is missing."""
from __future__ import annotations

import json
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

pytest.importorskip("grpc")
pytest.importorskip("google.protobuf")
pygnmi_client = pytest.importorskip("pygnmi.client")

from dataplane.resources import data_dir  # noqa: E402
from dataplane.testing.processes import dataplane_command, stop_process  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")

# 100 ms in, so the first samples come while the network is idle and keeps up with the wall clock
TRAFFIC = """\
- {app: udp, from: h1, to: h3, rate: 5Gbps, size: 1000, start: 100ms, duration: 1ms}
- {app: udp, from: h2, to: h3, rate: 5Gbps, size: 1000, start: 100ms, duration: 1ms}
- {app: udp, from: h4, to: h3, rate: 5Gbps, size: 1000, start: 100ms, duration: 1ms}
"""
SAMPLE_NS = 50_000_000
COUNTERS = {"in-octets": "rx_bytes", "in-pkts": "rx_packets", "out-octets": "tx_bytes", "out-pkts": "tx_packets",
            "out-discards": "drops", "out-errors": "lost"}


def _free_ports(n: int) -> int:
    """A base port with ``n`` free consecutive ports on loopback (checked, not reserved)."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            base = s.getsockname()[1]
        if base + n <= 65535 and all(_free(p) for p in range(base, base + n)):
            return base
    pytest.skip("no run of free ports on loopback")


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _topology(tmp_path: Path) -> Path:
    """leaf-spine.yaml with PFC on leaf2 (the receiver's leaf), entries from the built-in folder."""
    src = data_dir("topologies") / "leaf-spine.yaml"
    text = src.read_text().replace('"leaf-spine/', f'"{src.parent}/leaf-spine/')
    text = text.replace('leaf2: {kind: switch, program: ecmp_router,',
                        'leaf2: {kind: switch, program: ecmp_router, pfc: {xoff: 20KB, xon: 10KB},')
    assert "pfc" in text
    path = tmp_path / "leaf-spine-pfc.yaml"
    path.write_text(text)
    return path


def _last_values(updates: list[dict]) -> tuple[dict[str, object], list[int]]:
    """Each path's last value, and the timestamps of the samples (the notifications with every
    port's in-octets), of pygnmi's parsed updates."""
    last, stamps = {}, []
    for u in updates:
        body = u.get("update")
        if not body:
            continue
        paths = [item["path"] for item in body["update"]]
        if sum(p.endswith("/state/counters/in-octets") for p in paths) == 4:
            stamps.append(body["timestamp"])
        for item in body["update"]:
            last[item["path"]] = item["val"]
    return last, stamps


def test_pygnmi_streams_counters_that_match_the_runs_json(tmp_path):
    base, gnmi_base = _free_ports(4), _free_ports(4)
    (tmp_path / "traffic.yaml").write_text(TRAFFIC)
    log = tmp_path / "run.log"
    with open(log, "w") as err:
        proc = subprocess.Popen(
            dataplane_command("run", str(_topology(tmp_path)), "--serve", "--grpc-base-port", str(base),
                              "--gnmi-base-port", str(gnmi_base), "--duration", "600ms",
                              "--traffic", str(tmp_path / "traffic.yaml"), "--json"),
            stdout=subprocess.PIPE, stderr=err, text=True, start_new_session=True)
    client = None
    try:
        end = time.monotonic() + 60
        while "waiting for the controllers" not in log.read_text():
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < end, log.read_text()
            time.sleep(0.1)
        assert f"leaf2: gNMI on 127.0.0.1:{gnmi_base + 3}" in log.read_text()
        client = pygnmi_client.gNMIclient(target=("127.0.0.1", gnmi_base + 3), insecure=True)
        client.connect()
        with pytest.raises(pygnmi_client.gNMIException) as info:
            client.get(path=["/interfaces/interface[name=p9]"], encoding="proto")
        assert info.value.orig_exc.code().name == "NOT_FOUND"
        with pytest.raises(pygnmi_client.gNMIException) as info:
            client.get(path=["/interfaces/interface/config/mtu"], encoding="proto")
        assert info.value.orig_exc.code().name == "UNIMPLEMENTED"
        stream = client.subscribe_stream(subscribe={"encoding": "proto", "subscription": [
            {"path": "/interfaces/interface/state/counters", "mode": "sample", "sample_interval": SAMPLE_NS},
            {"path": "/qos/interfaces/interface/output/queues/queue/state", "mode": "on_change"},
            {"path": "/interfaces/interface/ethernet/state/counters", "mode": "on_change"}]})
        poll = client.subscribe_poll(subscribe={"mode": "poll", "encoding": "proto",
                                                "subscription": [{"path": "/interfaces/interface[name=p1]"}]})
        updates = [stream.get_update(timeout=10)]
        first_poll = poll.get_update(timeout=10)
        proc.send_signal(signal.SIGUSR1)             # the traffic starts now; the run lasts 600 ms
        while True:
            try:
                updates.append(stream.get_update(timeout=5))
            except TimeoutError:
                break                                # the run ended: its servers stopped
        out, _ = proc.communicate(timeout=60)
        assert proc.returncode == 0, log.read_text()
    finally:
        if client is not None:
            client.close()
        stop_process(proc)
    ports = {name.split(":")[1]: m for name, m in json.loads(out)["ports"].items() if name.startswith("leaf2:")}
    last, stamps = _last_values(updates)
    for port, m in ports.items():
        counters = f"interfaces/interface[name={port}]/state/counters/"
        for leaf, key in COUNTERS.items():
            assert last[counters + leaf] == m[key], (port, leaf)
        eth = f"interfaces/interface[name={port}]/ethernet/state/counters/"
        assert (last[eth + "in-mac-pause-frames"], last[eth + "out-mac-pause-frames"]) == (m["pause_rx"], m["pause_tx"])
        queue = f"qos/interfaces/interface[interface-id={port}]/output/queues/queue[name=0]/state/"
        assert last[queue + "max-queue-len"] == m["max_qdepth"] and last[queue + "current-queue-len"] == 0
        assert last[queue + "transmit-octets"] == m["tx_bytes"] and last[queue + "dropped-pkts"] == m["drops"]
    # what is compared is not all zeros: h3's port sent the incast, leaf2 paused its senders
    assert ports["p1"]["tx_packets"] > 1000 and sum(m["pause_tx"] for m in ports.values()) > 0
    assert max(v for k, v in last.items() if k.endswith("max-queue-len")) > 10
    # the poll before the start read time 0's zeros; samples then came every 50 ms of simulated time
    assert first_poll["update"]["update"][0]["val"] == "p1" and all(
        u["val"] in (0, "p1", "UP") for u in first_poll["update"]["update"])
    # Samples keep their schedule in simulated time from the subscription's start (time 0, the
    # first stamp): at most one in each 50 ms interval, none before its interval begins; the
    # first (idle) 100 ms give their two. (A loaded machine may skip later ones: the
    # simulator then runs behind the wall clock in long steps.)
    slots = [(t - stamps[0]) // SAMPLE_NS for t in stamps]
    assert slots == sorted(set(slots)) and slots[:2] == [0, 1] and slots[-1] <= 600_000_000 // SAMPLE_NS


@pytest.mark.parametrize("args, message", [
    (["--grpc-base-port", "50051", "--gnmi-base-port", "65533"],
     "Invalid value for '--gnmi-base-port': 4 switches need ports 65533..65536, past 65535"),
    (["--gnmi-base-port", "65536"], "'--gnmi-base-port': 65536 is not in the range 0<=x<=65535"),
])
def test_gnmi_ports_past_65535_are_refused(args, message):
    """Four switches take four gNMI ports: refused before any server starts."""
    from click.testing import CliRunner

    from dataplane.cli import main

    r = CliRunner().invoke(main, ["run", str(data_dir("topologies") / "leaf-spine.yaml"), "--serve", *args])
    assert r.exit_code == 2 and message in r.output, r.output
