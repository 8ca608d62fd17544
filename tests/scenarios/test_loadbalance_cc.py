"""``dataplane scenario loadbalance --cc``: HPCC on a k=4 fat-tree permutation keeps the switches'
queues far below what the same flows build without congestion control, with nothing dropped; the
combinations HPCC cannot run are refused with a located error; the queue percentiles, the FCT
slowdowns and HPCC's base RTT are what their definitions give, computed here by hand."""
from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from dataplane.cli import main
from dataplane.scenarios._loadbalance_cc import fct_slowdowns, hpcc_transport, queue_stats
from dataplane.scenarios.fabric import FabricConfig, build_fabric

pytestmark = pytest.mark.simulation      # runs in the PyPy re-run only, when there is one (tests/conftest.py)

ARGS = ["scenario", "loadbalance", "--lb", "ecmp", "--event", "none"]
CC_KEYS = {"cc", "queue_p50_bytes", "queue_p99_bytes", "queue_max_bytes", "fct_slowdown_mean", "fct_slowdown_p99",
           "goodput_fraction", "drops", "pause_frames"}


def permutation(cc: str, *extra: str) -> dict:
    result = CliRunner().invoke(main, [*ARGS, "--size", "1MiB", "--cc", cc, "--json", *extra])
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.output)["results"]
    return row


@pytest.fixture(scope="module")
def rows():
    return {"none": permutation("none", "--receiver", "gbn"), "hpcc": permutation("hpcc")}


def test_hpcc_drops_nothing_and_keeps_the_p99_queue_far_below_no_congestion_control(rows):
    """Two ECMP flows on one uplink: without congestion control the queue grows to PFC's XOFF
    (1 MB) and pauses; HPCC's window holds it near eta of the line, without a pause."""
    hpcc, none = rows["hpcc"], rows["none"]
    assert hpcc["drops"] == 0 and hpcc["pause_frames"] == 0 and none["pause_frames"] > 0
    assert none["queue_p99_bytes"] >= 1_000_000
    assert hpcc["queue_p99_bytes"] < none["queue_p99_bytes"] / 4
    assert hpcc["queue_max_bytes"] < none["queue_max_bytes"]


def test_hpcc_rows_name_their_program_receiver_and_keys(rows):
    """Under --cc hpcc the receiver is go-back-N without being asked, the row says hpcc.p4, and
    every run reports the congestion control's figures."""
    hpcc = rows["hpcc"]
    assert (hpcc["cc"], hpcc["receiver"], hpcc["lb"]) == ("hpcc", "gbn", "ecmp")
    assert hpcc["lb_detail"].startswith("hpcc.p4")
    assert rows["none"]["cc"] == "none" and not rows["none"]["lb_detail"].startswith("hpcc.p4")
    for row in rows.values():
        assert CC_KEYS <= set(row)
        assert row["fct_slowdown_p99"] >= row["fct_slowdown_mean"] >= 1.0
        assert row["queue_p50_bytes"] <= row["queue_p99_bytes"] <= row["queue_max_bytes"]


def test_the_text_output_has_the_congestion_control_table():
    """Without --lb, --cc hpcc runs the one scheme it can (ECMP) and says which program."""
    result = CliRunner().invoke(main, ["scenario", "loadbalance", "--event", "none", "--size", "64KiB", "--cc", "hpcc"])
    assert result.exit_code == 0, result.output
    assert result.output.count("permutation   none") == 2        # one run: a line in each table
    assert "HPCC (programs/hpcc.p4, go-back-N receiver)" in result.output
    assert "q p99 B" in result.output and "permutation   none  ecmp      gbn  hpcc" in result.output


@pytest.mark.parametrize("args, hint, words", [
    (["--lb", "ecmp,spray"], "--lb", "spray: --cc hpcc needs switches that stamp HPCC's records"),
    (["--lb", "adaptive"], "--lb", "only programs/hpcc.p4 (ECMP) does"),
    (["--receiver", "sack"], "--receiver", "go-back-N receiver only"),
    (["--receiver", "gbn,sack"], "--receiver", "use --receiver gbn"),
    (["--hash-seed", "1"], "--hash-seed", "has no seed"),
    (["--hash-fields", "src,dst"], "--hash-fields", "whole 5-tuple"),
])
def test_what_hpcc_cannot_run_is_refused_where_it_is_asked(args, hint, words):
    result = CliRunner().invoke(main, ["scenario", "loadbalance", "--size", "64KiB", "--cc", "hpcc", "--lb", "ecmp",
                                       *args])
    assert result.exit_code == 2 and hint in result.output and words in result.output
    assert "Traceback" not in result.output


def test_an_unknown_congestion_control_is_refused():
    result = CliRunner().invoke(main, [*ARGS, "--size", "64KiB", "--cc", "timely"])
    assert result.exit_code == 2 and "'timely' is not one of 'none', 'dcqcn', 'hpcc'" in result.output


def test_queue_percentiles_are_nearest_rank_over_every_frame():
    """100 frames: the 50th smallest is p50, the 99th p99 (one frame either side moves them)."""
    def stats(counts):
        return queue_stats([SimpleNamespace(counts=counts)])
    assert stats({0: 49, 10: 1, 20: 50}) == {"queue_p50_bytes": 10, "queue_p99_bytes": 20, "queue_max_bytes": 20}
    assert stats({0: 50, 10: 1, 20: 49})["queue_p50_bytes"] == 0
    assert stats({0: 98, 100: 1, 5000: 1}) == {"queue_p50_bytes": 0, "queue_p99_bytes": 100, "queue_max_bytes": 5000}
    assert stats({0: 98, 100: 2, 5000: 1})["queue_p99_bytes"] == 100     # 101 frames: rank 100
    assert stats({0: 97, 100: 2, 5000: 1})["queue_p99_bytes"] == 100
    assert stats({0: 97, 100: 1, 5000: 2})["queue_p99_bytes"] == 5000


@pytest.fixture(scope="module")
def fat_tree():
    return build_fabric(FabricConfig(k=4))


def test_fct_slowdown_is_over_the_flow_alone_on_its_shortest_path(fat_tree):
    """1 MiB in 256 frames of 4,096 B (4,178 B on the wire each) at 100G, plus one frame's trip:
    6 links of 1 us across pods, 4 within one."""
    names = [h.name for h in fat_tree.hosts]
    other_pod = next(i for i, n in enumerate(names) if fat_tree.rack_of[n][-3] != fat_tree.rack_of[names[0]][-3])
    same_pod = next(i for i, n in enumerate(names[1:], 1)
                    if fat_tree.rack_of[n] != fat_tree.rack_of[names[0]] and i != other_pod
                    and fat_tree.rack_of[n][-3] == fat_tree.rack_of[names[0]][-3])
    line = 256 * 4178 * 8 / 100
    far, near = line + 6 * (1000 + 4178 * 8 / 100), line + 4 * (1000 + 4178 * 8 / 100)
    got = fct_slowdowns(fat_tree, [(0, other_pod), (0, same_pod)], [far, 2 * near], 1 << 20, 4096, False)
    assert got == {"fct_slowdown_mean": 1.5, "fct_slowdown_p99": 2.0}
    # HPCC's frames carry its 42-byte INT header: the same time is a smaller slowdown
    hpcc = fct_slowdowns(fat_tree, [(0, other_pod)], [far], 1 << 20, 4096, True)["fct_slowdown_mean"]
    ideal = 256 * 4220 * 8 / 100 + 6 * (1000 + 4220 * 8 / 100)
    assert hpcc == round(far / ideal, 3) and hpcc < 1.0


def test_hpcc_base_rtt_is_the_longest_idle_path_data_out_ack_back(fat_tree):
    """T on a k=4 fat-tree: 6 links, each 2 x 1 us plus a 4,220 B data frame's and a 128 B ACK's
    line time at 100G (the INT header in both); an ACK per packet; go-back-N."""
    tc = hpcc_transport(fat_tree, 4096)
    assert tc.hpcc.base_rtt_ns == round(6 * (2000 + (4220 + 128) * 8 / 100))
    assert (tc.ack_every, tc.receiver, tc.mtu) == (1, "gbn", 4096)
