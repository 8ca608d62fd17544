"""The training scenario on a small fabric: the step taken apart, and what each fault costs."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from dataplane.cli import main
from dataplane.net.training.job import job_from_text
from dataplane.scenarios.fabric import FabricConfig
from dataplane.scenarios.training_run import Fault, run_job

pytestmark = pytest.mark.simulation      # runs in the PyPy re-run only, when there is one (tests/conftest.py)

FABRIC = FabricConfig(topology="leaf-spine", leaves=2, spines=1, hosts_per_leaf=2)       # 4 hosts
DP4 = ("gpus: 4\nsteps: 2\nbucket: 256KiB\noptimizer: 10us\n"
       "model: {parameters: 400K, layers: 4, tokens: 8K, flops: 100T}\n")


@pytest.fixture(scope="module")
def clean():
    return run_job(job_from_text(DP4), FABRIC, Fault("clean"))


def test_a_step_is_compute_plus_what_the_network_did_not_hide(clean):
    job = job_from_text(DP4)
    compute = sum(l.forward_ns + l.backward_ns for l in job.layers) + job.optimizer_ns
    for step in clean.steps:
        assert step["mean_compute_ns"] == pytest.approx(compute, rel=0.02)
        assert step["step_ns"] >= step["mean_compute_ns"]
        assert step["mean_communication_ns"] > step["mean_exposed_ns"] > 0     # overlapped, partly hidden
        assert 0 < step["mean_idle"] < 0.5


def test_every_gradient_byte_is_reduced_once_a_step(clean):
    job = job_from_text(DP4)
    grads = sum(l.gradient_bytes for l in job.layers)
    # ring AllReduce sends 2(n-1)/n of what it reduces; per GPU, over the two steps
    from dataplane.net.collectives.algorithms import build_plan

    sent = 0
    bucket = 0
    for layer in reversed(job.layers):
        bucket += layer.gradient_bytes
        if bucket >= job.bucket_bytes:
            sent += build_plan("allreduce", "ring", 4, bucket // 4).bytes_sent(0)
            bucket = 0
    if bucket:
        sent += build_plan("allreduce", "ring", 4, bucket // 4).bytes_sent(0)
    assert sent == pytest.approx(2 * 3 / 4 * grads, rel=0.01)
    assert clean.per_gpu[0]["communication_ms"] > 0


def test_a_straggler_sets_the_pace_and_its_peers_idle(clean):
    slow = run_job(job_from_text(DP4), FABRIC, Fault("straggler", slowdown=2.0), clean)
    compute = clean.steps[0]["mean_compute_ns"]
    assert all(s["step_ns"] >= 2.0 * compute * 0.98 for s in slow.steps)
    assert slow.per_gpu[0]["idle"] > clean.per_gpu[0]["idle"] + 0.3               # waiting for GPU 3
    assert slow.summary()["inflation"] >= 2.0 * compute / clean.mean_step_ns - 1 - 0.02


def test_a_degraded_link_and_loss_cost_step_time(clean):
    for fault in (Fault("degraded", rate=0.1), Fault("loss", loss=0.01)):
        hurt = run_job(job_from_text(DP4), FABRIC, fault, clean)
        assert hurt.summary()["inflation"] > 0.02, fault
    lossy = run_job(job_from_text(DP4), FABRIC, Fault("loss", loss=0.01), clean)
    assert lossy.retransmitted > 0


def test_a_flap_longer_than_a_step_stalls_the_job_for_it(clean):
    down = 3 * clean.steps[1]["step_ns"]
    flapped = run_job(job_from_text(DP4), FABRIC, Fault("flap", down_ns=down), clean)
    total = sum(s["step_ns"] for s in flapped.steps)
    assert total >= sum(s["step_ns"] for s in clean.steps) + down * 0.5
    assert flapped.summary()["max_idle"] > 0.5


def test_tensor_and_pipeline_parallel_jobs_wait_for_their_groups():
    job = job_from_text("gpus: 4\nsteps: 1\nparallel: {tensor: 2, pipeline: 2, microbatches: 2}\n"
                        "model: {parameters: 400K, layers: 4, tokens: 8K, flops: 100T}\n")
    result = run_job(job, FABRIC, Fault("clean"))
    kinds = {k for t in result.timelines for _, _, k in t}
    assert {"forward", "backward", "tensor", "pipeline"} <= kinds
    assert "exposed" not in kinds                        # data parallelism of 1: no gradient buckets


def test_the_command_prints_json_and_a_bad_job_is_a_located_error(tmp_path, plots_drawn):
    job = tmp_path / "job.yaml"
    job.write_text(DP4)
    result = CliRunner().invoke(main, ["scenario", "training", str(job), "--topology", "leaf-spine",
                                       "--what-if", "straggler", "--json", "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert [r["fault"] for r in data["results"]] == ["clean", "straggler"]
    saved = json.loads((tmp_path / "o" / "results.json").read_text())
    assert [f["kind"] for f in saved["figures"]] == ["timeline", "timeline"]
    assert (tmp_path / "o" / "timeline.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = tmp_path / "bad.yaml"
    bad.write_text(DP4 + "buckets: 1MB\n")
    result = CliRunner().invoke(main, ["scenario", "training", str(bad), "--what-if", "none"])
    assert result.exit_code == 1 and f"{bad}:6" in result.output and "unknown field 'buckets'" in result.output


def test_a_job_on_a_sprayed_fabric_needs_receivers_that_place_out_of_order_packets():
    """lb: spray on two spines: with sack receivers the step has no retransmission; with
    go-back-N every overtaken packet is resent and the step takes longer. An uplink down from the
    start (routes converged) leaves one spine, enough for the ring's one flow each way between
    the racks: the job finishes in the clean time."""
    fabric = FabricConfig(topology="leaf-spine", leaves=2, spines=2, hosts_per_leaf=2)
    sack = run_job(job_from_text(DP4 + "lb: spray\n"), fabric, Fault("clean"))
    gbn = run_job(job_from_text(DP4 + "lb: {scheme: spray, receiver: gbn}\n"), fabric, Fault("clean"))
    assert sack.retransmitted == 0 and gbn.retransmitted > 0
    assert gbn.mean_step_ns > sack.mean_step_ns
    down = run_job(job_from_text(DP4 + "lb: adaptive\n"), fabric, Fault("down"), sack)
    assert down.description == "link leaf1-spine1 down from the start, routes converged without it"
    assert len(down.steps) == 2 and down.summary()["inflation"] == pytest.approx(0, abs=0.01)


def test_a_job_on_reps_sprays_from_its_hosts_and_refuses_go_back_n(tmp_path):
    """lb: reps: the hosts choose every packet's entropy over ecmp.p4 switches; the job runs with
    sack receivers, nothing resent, its step no longer than with the switches spraying (within
    1%). --lb reps with --receiver gbn is refused before anything runs."""
    fabric = FabricConfig(topology="leaf-spine", leaves=2, spines=2, hosts_per_leaf=2)
    spray = run_job(job_from_text(DP4 + "lb: spray\n"), fabric, Fault("clean"))
    reps = run_job(job_from_text(DP4 + "lb: reps\n"), fabric, Fault("clean"))
    assert reps.retransmitted == 0 and reps.mean_step_ns <= spray.mean_step_ns * 1.01
    job = tmp_path / "job.yaml"
    job.write_text(DP4)
    result = CliRunner().invoke(main, ["scenario", "training", str(job), "--lb", "reps", "--receiver", "gbn"])
    assert result.exit_code == 2 and "needs the sack receiver" in result.output


def test_a_job_s_lb_window_counted_as_the_pipe_reaches_its_transport(tmp_path):
    """lb: spray with 2 packets in flight per flow on two spines: a packet overtaken on the other
    spine holds the span's whole window, and only one slot of the pipe, so counting the pipe
    the step is shorter (1.88 ms against 1.97); nothing is resent either way. --receiver gbn
    with such a job is refused before anything runs."""
    fabric = FabricConfig(topology="leaf-spine", leaves=2, spines=2, hosts_per_leaf=2)
    lb = "lb: {scheme: spray, window: 2, window_counts: %s}\n"
    span = run_job(job_from_text(DP4 + lb % "span"), fabric, Fault("clean"))
    pipe = run_job(job_from_text(DP4 + lb % "pipe"), fabric, Fault("clean"))
    assert pipe.mean_step_ns < span.mean_step_ns * 0.98
    assert span.retransmitted == pipe.retransmitted == 0
    job = tmp_path / "job.yaml"
    job.write_text(DP4 + lb % "pipe")
    result = CliRunner().invoke(main, ["scenario", "training", str(job), "--receiver", "gbn", "--what-if", "none"])
    assert result.exit_code == 2 and "needs the sack receiver" in result.output, result.output
