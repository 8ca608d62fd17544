"""The text summary of ``dataplane run``: every number says what it counts, nothing is left out silently."""
from dataplane.net.capture.metrics import format_table


def _port(tx: int = 0, rx: int = 0, drops: int = 0) -> dict:
    return {"tx_packets": tx, "tx_bytes": tx * 100, "rx_packets": rx, "drops": drops, "lost": 0,
            "max_qdepth": 0, "p99_qdepth": 0, "pause_tx": 0, "pause_rx": 0, "paused_ns": 0, "utilisation": 0.0}


def _data(n_hosts: int, ports: dict, switches: dict) -> dict:
    hosts = {f"h{i}": {"sent": i, "delivered": i, "lost": 0, "received": 10 * i} for i in range(n_hosts, 0, -1)}
    return {"sim_time_ns": 1_000_000, "events": 5, "hosts": hosts, "ports": ports, "switches": switches}


def test_hosts_in_natural_order_with_received_and_units():
    out = format_table(_data(10, {}, {})).splitlines()
    header = next(line for line in out if line.startswith("host"))
    assert header.split() == ["host", "sent", "pkts", "delivered", "lost", "received", "pkts"]
    rows = [line.split() for line in out if line.startswith("h")][1:]
    assert [r[0] for r in rows] == [f"h{i}" for i in range(1, 11)]
    assert rows[1] == ["h2", "2", "2", "0", "20"]


def test_port_table_says_how_many_ports_it_left_out():
    ports = {f"s1:p{i}": _port(tx=i) for i in range(1, 6)}
    ports.update({f"s2:p{i}": _port() for i in range(1, 4)})
    out = format_table(_data(1, ports, {}), top_ports=4)
    assert "tx bytes" in out and "max q pkts" in out
    assert [line.split()[0] for line in out.splitlines() if line.startswith(("s1:", "s2:"))] == \
        ["s1:p5", "s1:p4", "s1:p3", "s1:p2"]
    assert "... 4 more ports not shown (3 of them idle)" in out
    assert "more ports" not in format_table(_data(1, ports, {}), top_ports=0)


def test_program_drops_listed_by_switch_and_reason():
    switches = {"s10": {"packets_in": 3, "drops": {"mark_to_drop": 3}}, "s2": {"packets_in": 1, "drops": {}},
                "s9": {"packets_in": 2, "drops": {"mark_to_drop": 1, "no port 7": 1}}}
    out = format_table(_data(1, {}, switches)).splitlines()
    assert [line for line in out if line.startswith("switch")] == [
        "switch s9 dropped: mark_to_drop: 1, no port 7: 1", "switch s10 dropped: mark_to_drop: 3"]
    quiet = format_table(_data(1, {}, {"s1": {"packets_in": 1, "drops": {}}}))
    assert "switches dropped no packets" in quiet
