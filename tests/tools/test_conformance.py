"""tools/conformance.py: which STF samples its stf suite collects and the architecture each runs on."""
from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def conformance(load_tool):
    return load_tool("conformance")


def _sample(d: Path, name: str, include: str, stf: bool = True) -> None:
    (d / f"{name}.p4").write_text(f"#include <core.p4>\n#include <{include}>\n")
    if stf:
        (d / f"{name}.stf").write_text("packet 0 00\n")


@pytest.fixture
def p4c(tmp_path: Path) -> Path:
    samples = tmp_path / "testdata" / "p4_16_samples"
    samples.mkdir(parents=True)
    _sample(samples, "basic-bmv2", "v1model.p4")
    _sample(samples, "psa-basic-bmv2", "psa.p4")
    _sample(samples, "filter_ebpf", "ebpf_model.p4")
    _sample(samples, "dec_ttl_ebpf-kernel", "xdp_model.p4")
    _sample(samples, "filter_in_xdp_ebpf-kernel", "ebpf_model.p4")
    _sample(samples, "fwd_ubpf", "ubpf_model.p4")
    _sample(samples, "no_stf_ebpf", "ebpf_model.p4", stf=False)
    (samples / "orphan_ubpf.stf").write_text("packet 0 00\n")   # no program: not a job
    return tmp_path


def test_stf_suite_collects_the_ebpf_drivers_samples(conformance, p4c):
    """The stf suite runs the BMv2 samples and the eBPF, XDP and uBPF drivers' samples that have a program."""
    names = sorted(Path(path).name for suite, path in conformance.collect(p4c, ["stf"], None))
    assert names == ["basic-bmv2.p4", "dec_ttl_ebpf-kernel.p4", "filter_ebpf.p4", "filter_in_xdp_ebpf-kernel.p4",
                     "fwd_ubpf.p4", "psa-basic-bmv2.p4"]


def test_each_stf_sample_runs_on_the_architecture_it_includes(conformance, p4c):
    """eBPF-family samples keep the architecture they include (their own rows); BMv2 samples run
    on v1model unless they are PSA's."""
    got = {Path(path).stem: conformance.stf_architecture(path, conformance.architecture(Path(path)))
           for _, path in conformance.collect(p4c, ["stf"], None)}
    assert got == {"basic-bmv2": "v1model", "psa-basic-bmv2": "psa", "filter_ebpf": "ebpf",
                   "dec_ttl_ebpf-kernel": "xdp", "filter_in_xdp_ebpf-kernel": "ebpf", "fwd_ubpf": "ubpf"}


def test_compile_suite_groups_programs_by_their_include(conformance, p4c):
    """--arch ebpf / xdp / ubpf select the programs that include ebpf_model.p4, xdp_model.p4, ubpf_model.p4."""
    arch = {Path(p).stem: conformance.architecture(Path(p)) for _, p in conformance.collect(p4c, ["compile"], None)}
    assert arch["no_stf_ebpf"] == "ebpf" and arch["dec_ttl_ebpf-kernel"] == "xdp" and arch["fwd_ubpf"] == "ubpf"


_V1MODEL = """#include <core.p4>
#include <v1model.p4>
struct H {} struct M {}
parser P(packet_in p, out H h, inout M m, inout standard_metadata_t s) { state start { transition accept; } }
control C(inout H h, inout M m) { apply {} }
control I(inout H h, inout M m, inout standard_metadata_t s) { apply {} }
control D(packet_out p, in H h) { apply {} }
V1Switch(P(), C(), I(), I(), C(), D()) main;
"""


def test_load_suite_tells_loaded_from_skipped_and_failed(conformance, tmp_path, monkeypatch):
    """A program that loads passes; one without a main package, or that does not compile, is not
    counted; an exception other than DataplaneError fails, named by type and dataplane frame."""
    ok, nopkg, bad = tmp_path / "ok.p4", tmp_path / "nopkg.p4", tmp_path / "bad.p4"
    ok.write_text(_V1MODEL)
    nopkg.write_text("#include <core.p4>\nheader h_t { bit<8> f; }\n")
    bad.write_text("this is not P4\n")
    status = {p.stem: conformance.run_job(("load", str(p)))["status"] for p in (ok, nopkg, bad)}
    assert status == {"ok": "pass", "nopkg": "skip", "bad": "skip"}
    from dataplane.arch import v1model

    def broken(self, *args, **kwargs):
        raise KeyError("p")

    monkeypatch.setattr(v1model.V1ModelSwitch, "__init__", broken)
    out = conformance.run_job(("load", str(ok)))
    assert out["status"] == "fail" and out["category"] == "KeyError at switch.py:__init__"   # innermost in dataplane


def test_load_suite_names_dataplane_s_frame_whatever_the_clone_folder_is_called(conformance, tmp_path, monkeypatch,
                                                                               raiser_beside_dataplane):
    """The frame a failure is grouped by is the package's innermost, not a frame of a file that
    merely sits under a folder called ``dataplane`` (a clone's tests and tools)."""
    ok = tmp_path / "ok.p4"
    ok.write_text(_V1MODEL)
    from dataplane.arch import v1model

    monkeypatch.setattr(v1model.V1ModelSwitch, "__init__", raiser_beside_dataplane("broken", "KeyError('p')"))
    out = conformance.run_job(("load", str(ok)))
    assert out["status"] == "fail" and out["category"] == "KeyError at switch.py:__init__"


def test_load_suite_counts_a_clear_refusal(conformance, tmp_path, monkeypatch):
    """A DataplaneError while loading is a refusal with its message, not a failure."""
    from dataplane.arch import v1model
    from dataplane.arch.device import ArchitectureError

    def refuse(self, *args, **kwargs):
        raise ArchitectureError("extern 'E' is not supported")

    monkeypatch.setattr(v1model.V1ModelSwitch, "__init__", refuse)
    prog = tmp_path / "ok.p4"
    prog.write_text(_V1MODEL)
    out = conformance.run_job(("load", str(prog)))
    assert out["status"] == "refused" and out["message"] == "extern 'E' is not supported"
