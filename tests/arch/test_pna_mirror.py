"""PNA mirror_packet: copies to the port of a mirror session the control plane configured.

pna_v07.p4 rewrites eth.src in the main control, so a POST_MODIFY copy (the packet after
the main control, the default) and a PRE_MODIFY copy (the packet as received) differ.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from dataplane.arch.pna import MIRROR_COPY
from dataplane.arch.v1model import NORMAL
from dataplane.control.cli_parser import parse_cli_commands
from dataplane.control.loader import apply_cli_commands
from dataplane.control.switch import ControlPlaneError, Switch
from dataplane.net.fabric.network import Network
from dataplane.net.topology.load import load_topology

HERE = Path(__file__).parent
V07 = HERE / "pna_v07.p4"
NET_SRC = "0a0000000001"        # pna_v07.p4's eth.src for a packet from a net port


def frame(dst: str, src: str = "020000000009", etype: str = "0800", payload: bytes = b"payload!") -> bytes:
    return bytes.fromhex(dst + src + etype) + payload


def nic(mirror_port0: tuple[int, int] | None = (1, 7)) -> Switch:
    """pna_v07.p4 forwarding 02..02 to port 2; packets from port 0 mirrored on (slot, session)."""
    sw = Switch.from_file(V07)
    sw.table_add("L2_fwd", "L2_send_to_port", ["0x020000000002"], [2])
    if mirror_port0 is not None:
        sw.table_add("mirror_sel", "mirror_to", [0], list(mirror_port0))
    return sw


def outs(result) -> list[tuple[int, bytes, int]]:
    return [(o.port, o.data, o.instance_type) for o in result.outputs]


def test_copy_after_the_main_control_goes_to_the_session_port_after_the_original():
    sw = nic()
    sw.mirroring_add(7, 3)
    sent = frame("020000000002", NET_SRC)
    assert outs(sw.process(0, frame("020000000002"))) == [(2, sent, NORMAL), (3, sent, MIRROR_COPY)]


def test_pre_modify_session_copies_the_packet_as_received():
    sw = nic()
    sw.clone_session_add(7, 3, packet_contents="PRE_MODIFY")
    received = frame("020000000002")
    assert outs(sw.process(0, received)) == [(2, frame("020000000002", NET_SRC), NORMAL), (3, received, MIRROR_COPY)]


def test_a_dropped_packet_is_still_mirrored():
    """The spec: mirror copies are independent of drop_packet()/send_to_port() on the original."""
    sw = nic()
    sw.mirroring_add(7, 1)
    result = sw.process(0, frame("0200000000ff"))
    assert outs(result) == [(1, frame("0200000000ff", NET_SRC), MIRROR_COPY)]
    assert result.drops == ["dropped in main control (drop_packet, or no send_to_port)"]


def test_session_packet_length_truncates_the_copy_only():
    sw = nic()
    sw.clone_session_add(7, 3, packet_length=14)
    sent = frame("020000000002", NET_SRC)
    assert outs(sw.process(0, frame("020000000002"))) == [(2, sent, NORMAL), (3, sent[:14], MIRROR_COPY)]


def test_each_slot_makes_its_own_copy_in_slot_order():
    """Port 0 mirrors on slot 1 (session 7); ether type 0x88b6 also on slot 3 (session 9)."""
    sw = nic()
    sw.mirroring_add(7, 3)
    sw.mirroring_add(9, 1)
    sent = frame("020000000002", NET_SRC, etype="88b6")
    assert outs(sw.process(0, frame("020000000002", etype="88b6"))) == \
        [(2, sent, NORMAL), (3, sent, MIRROR_COPY), (1, sent, MIRROR_COPY)]


def test_the_last_call_for_a_slot_wins():
    """Slot 3 for both: the table's mirror_to(3, 7) runs first, then mirror_packet(3, 9) replaces it."""
    sw = nic(mirror_port0=(3, 7))
    sw.mirroring_add(7, 3)
    sw.mirroring_add(9, 1)
    sent = frame("020000000002", NET_SRC, etype="88b6")
    assert outs(sw.process(0, frame("020000000002", etype="88b6"))) == [(2, sent, NORMAL), (1, sent, MIRROR_COPY)]


def test_an_unconfigured_session_makes_no_copy_and_only_counts_a_miss():
    sw = nic()
    for _ in range(500):
        assert [o.port for o in sw.process(0, frame("020000000002")).outputs] == [2]
    assert sw.dp.mirror_misses == {7: 500}      # one counter per session, not a record per packet
    sw.mirroring_add(7, 3)
    assert [o.port for o in sw.process(0, frame("020000000002")).outputs] == [2, 3]
    sw.clone_session_delete(7)
    assert [o.port for o in sw.process(0, frame("020000000002")).outputs] == [2]


def test_cli_mirroring_add_configures_the_session():
    sw = nic()
    cmds = parse_cli_commands("mirroring_add 7 3\n", "s1-commands.txt")
    assert apply_cli_commands(sw, cmds) == []
    assert [o.port for o in sw.process(0, frame("020000000002")).outputs] == [2, 3]


def test_mirror_session_configuration_errors():
    sw = nic()
    with pytest.raises(ControlPlaneError, match="session 0 is reserved by PNA"):
        sw.mirroring_add(0, 3)
    with pytest.raises(ControlPlaneError, match="PNA has no multicast groups"):
        sw.clone_session_add_mc(7, 1)
    with pytest.raises(ControlPlaneError, match="packet_contents must be PRE_MODIFY or POST_MODIFY"):
        sw.mirroring_add(7, 3, packet_contents="AFTER")
    v1 = Switch.from_file(HERE / "assert_prog.p4")
    with pytest.raises(ControlPlaneError, match="packet_contents is a PNA mirror session property"):
        v1.mirroring_add(7, 3, packet_contents="PRE_MODIFY")


def test_a_dpu_in_a_network_sends_the_mirror_copy_out_of_its_port(tmp_path):
    """h1 - d1 - h2 with a collector h3 on d1's p3: d1 forwards h1's frame to h2 and mirrors it to h3."""
    entries = tmp_path / "d1.txt"
    entries.write_text("table_add L2_fwd L2_send_to_port 0x020000000002 => 2\n"
                       "table_add mirror_sel mirror_to 0 => 1 7\n"
                       "mirroring_add 7 3\n")
    topo = tmp_path / "mirror.yaml"
    topo.write_text(f"""
name: mirror
defaults: {{bandwidth: 10Gbps, latency: 0us, queue: 1000p}}
topology:
  nodes:
    d1: {{kind: dpu, program: {V07}, entries: {entries}, net_ports: [p0]}}
    h1: {{kind: host, ip: 10.0.0.1/24, mac: "02:00:00:00:00:09"}}
    h2: {{kind: host, ip: 10.0.0.2/24, mac: "02:00:00:00:00:02"}}
    h3: {{kind: host, ip: 10.0.0.3/24, mac: "02:00:00:00:00:03"}}
  links:
    - {{endpoints: ["h1:eth0", "d1:p0"]}}
    - {{endpoints: ["d1:p2", "h2:eth0"]}}
    - {{endpoints: ["d1:p3", "h3:eth0"]}}
""")
    net = Network.from_spec(load_topology(topo))
    seen: dict[str, list[bytes]] = {"h2": [], "h3": []}
    for name in seen:
        net.host(name).on_receive(lambda data, now, name=name: seen[name].append(data) or True)
    net.host("h1").send_raw(frame("020000000002"))
    net.run(1_000_000)
    sent = frame("020000000002", NET_SRC)
    assert seen == {"h2": [sent], "h3": [sent]}
    assert net.dpu("d1").stats.outputs == 2
