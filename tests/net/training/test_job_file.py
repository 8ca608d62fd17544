"""Job files: what they mean, and a located error for everything wrong in one."""
from __future__ import annotations

import pytest

from dataplane.control.config_errors import ConfigError
from dataplane.net.training.job import job_from_text, model_layers

MODEL = "model: {parameters: 8M, layers: 8, tokens: 16K, flops: 100T}\n"


def test_a_model_gives_six_params_tokens_flops_a_step():
    """Forward 2PT and backward 4PT FLOPs in all (the usual 6 x params x tokens of a step)."""
    layers = model_layers(8e6, 8, 16_000, 100e12)
    total_ns = sum(l.forward_ns + l.backward_ns for l in layers)
    assert total_ns == pytest.approx(6 * 8e6 * 16_000 / 100e12 * 1e9, rel=1e-6)
    assert sum(l.gradient_bytes for l in layers) == 8e6 * 2                        # bf16 gradients
    hidden = (8e6 / (12 * 8)) ** 0.5                                              # P = 12 L h^2
    assert layers[0].activation_bytes == pytest.approx(16_000 * hidden * 2, abs=4)


def test_tensor_parallelism_splits_compute_and_gradients():
    one, two = model_layers(8e6, 8, 16_000, 100e12), model_layers(8e6, 8, 16_000, 100e12, tensor=2)
    assert two[0].forward_ns == pytest.approx(one[0].forward_ns / 2, abs=1)
    assert two[0].gradient_bytes == one[0].gradient_bytes // 2


def test_data_parallelism_is_what_tensor_and_pipeline_leave():
    job = job_from_text("gpus: 16\nparallel: {tensor: 2, pipeline: 2, microbatches: 4}\n" + MODEL)
    assert (job.data, job.tensor, job.pipeline, job.world) == (4, 2, 2, 16)
    assert job.coordinates(0) == (0, 0, 0) and job.coordinates(1) == (0, 0, 1) and job.coordinates(2) == (0, 1, 0)
    assert job.coordinates(8) == (1, 0, 0) and job.gpu_at(1, 3, 1) == 15
    assert [len(job.stage_layers(s)) for s in (0, 1)] == [4, 4]


def test_explicit_layers_and_units():
    job = job_from_text("gpus: 2\nbucket: 1MiB\noptimizer: 50us\nlayers:\n"
                        "  - {count: 3, forward: 1ms, backward: 2ms, gradient: 4KB, activation: 1KiB}\n")
    assert len(job.layers) == 3 and job.layers[0].forward_ns == 1_000_000 and job.layers[0].gradient_bytes == 4000
    assert job.layers[0].activation_bytes == 1024 and job.bucket_bytes == 2**20 and job.optimizer_ns == 50_000


@pytest.mark.parametrize("text, line, words", [
    ("gpus: 16\n" + MODEL + "colective: {}\n", 3, "unknown field 'colective'"),
    ("gpus: 12\nparallel:\n  tensor: 5\n" + MODEL, 1, "do not split"),
    ("gpus: 16\nparallel:\n  data: 3\n" + MODEL, 3, "data x tensor x pipeline"),
    ("gpus: 16\nmodel: {parameters: lots, layers: 8, tokens: 16K, flops: 100T}\n", 2, "parameter count"),
    ("gpus: 16\n" + MODEL + "bucket: -5MB\n", 3, "bucket"),
    ("gpus: 16\n" + MODEL + "collective:\n  algorithm: butterfly\n", 4, "butterfly"),
    ("gpus: 16\n", 1, "needs a 'model'"),
    ("gpus: 0\n" + MODEL, 1, "gpus"),
    ("gpus: 4\nparallel: {pipeline: 4}\nlayers:\n  - {forward: 1ms, backward: 1ms, gradient: 4KB}\n", 2,
     "only 1 layers"),
])
def test_every_bad_job_file_gets_a_located_error(text, line, words):
    with pytest.raises(ConfigError) as info:
        job_from_text(text, "job.yaml")
    assert info.value.file == "job.yaml" and info.value.line == line and words in str(info.value)


def test_lb_names_a_scheme_and_turns_on_selective_repeat():
    """``lb: spray`` is the spray program with its defaults and sack receivers; a mapping sets
    the scheme's settings; without lb the receivers stay go-back-N."""
    plain = job_from_text("gpus: 16\n" + MODEL)
    assert plain.lb is None and plain.receiver == "gbn"
    spray = job_from_text("gpus: 16\n" + MODEL + "lb: spray\n")
    assert spray.lb.scheme == "spray" and spray.lb.spray_order == "round-robin" and spray.receiver == "sack"
    job = job_from_text("gpus: 16\n" + MODEL + "lb:\n  scheme: flowlet\n  receiver: gbn\n  flowlet_us: 200\n"
                        "  flowlet_choice: least-loaded\n  quantum: 64KiB\n  hash_fields: [src, dst]\n")
    lb = job.lb
    assert (lb.scheme, lb.flowlet_us, lb.flowlet_choice, lb.load_shift, lb.hash_fields, job.receiver) == \
        ("flowlet", 200, "least-loaded", 16, ("src", "dst"), "gbn")
    reps = job_from_text("gpus: 16\n" + MODEL + "lb: reps\n")
    assert reps.lb.host_entropy and reps.lb.transport_window == 96 and reps.receiver == "sack"
    piped = job_from_text("gpus: 16\n" + MODEL + "lb:\n  scheme: spray\n  window: 64\n  window_counts: pipe\n")
    assert (piped.lb.transport_window, piped.lb.window_counts, piped.receiver) == (64, "pipe", "sack")
    assert spray.lb.window_counts == "span" and spray.lb.transport_window is None
    acks = job_from_text("gpus: 16\n" + MODEL + "lb:\n  scheme: reps\n  spray_acks: true\n")
    assert acks.lb.spray_acks and not reps.lb.spray_acks
    split = job_from_text("gpus: 16\n" + MODEL + "lb:\n  scheme: adaptive\n  components: true\n  ack_priority: true\n")
    assert split.lb.components and split.lb.ack_priority and not spray.lb.components and not spray.lb.ack_priority
    coarse = job_from_text("gpus: 16\n" + MODEL + "lb:\n  scheme: adaptive\n  quantum: 256KiB\n")
    assert (coarse.lb.load_shift, coarse.lb.path_shift) == (18, 18)
    assert (job.lb.load_shift, job.lb.path_shift) == (16, 17)      # path mode's own 128 KiB where coarser


@pytest.mark.parametrize("text, line, words", [
    ("lb: hashing\n", 3, "unknown load-balancing scheme 'hashing'"),
    ("lb:\n  receiver: sack\n", 3, "needs 'scheme'"),
    ("lb:\n  scheme: reps\n  receiver: gbn\n", 5, "needs the sack receiver"),
    ("lb:\n  scheme: spray\n  receiver: tcp\n", 5, "receiver"),
    ("lb:\n  scheme: spray\n  quantum: 3000B\n", 5, "power of two"),
    ("lb:\n  scheme: spray\n  sprey: random\n", 5, "unknown field 'sprey'"),
    ("lb:\n  scheme: flowlet\n  flowlet_us: 0\n", 5, "lb.flowlet_us"),
    ("lb:\n  scheme: spray\n  window: 0\n", 5, "lb.window"),
    ("lb:\n  scheme: spray\n  window: 65537\n", 5, "lb.window"),
    ("lb:\n  scheme: spray\n  window_counts: bytes\n", 5, "must be one of span, pipe"),
    ("lb:\n  scheme: spray\n  receiver: gbn\n  window_counts: pipe\n", 6, "pipe needs the sack receiver"),
    ("lb:\n  scheme: reps\n  spray_acks: 1\n", 5, "lb.spray_acks"),
    ("lb:\n  scheme: spray\n  spray_acks: true\n", 3, "spraying the ACKs is reps'"),
    ("lb:\n  scheme: adaptive\n  components: yes please\n", 5, "lb.components"),
    ("lb:\n  scheme: spray\n  ack_priority: 1\n", 5, "lb.ack_priority"),
    ("lb:\n  scheme: spray\n  components: true\n", 3, "least-loaded choice"),
])
def test_a_bad_lb_gets_a_located_error(text, line, words):
    with pytest.raises(ConfigError) as info:
        job_from_text("gpus: 16\n" + MODEL + text, "job.yaml")
    assert info.value.line == line and words in str(info.value)
