"""Values that used to hang or mean something else: each is refused with an error line, never a traceback."""
from __future__ import annotations

import click
import pytest
from click.testing import CliRunner
from scapy.layers.inet import IP
from scapy.layers.l2 import Ether
from scapy.utils import PcapNgWriter, wrpcap

from dataplane.cli import main


def invoke(*args: str):
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    return result


# ---- durations need a unit and must be positive --------------------------------------------------

@pytest.mark.parametrize("value,message", [("10", "has no unit"), ("0", "has no unit"), ("0ms", "more than zero"),
                                           ("-1ms", "cannot read"), ("10 parsecs", "unknown time unit")])
def test_run_duration_needs_a_positive_time_with_a_unit(value, message):
    r = invoke("run", "--duration", value)
    assert r.exit_code == 2 and message in r.output and "Error:" in r.output


def test_run_duration_with_a_unit_runs():
    r = invoke("run", "--duration", "1us", "--json")
    assert r.exit_code == 0, r.output


def test_run_help_says_durations_need_units():
    assert "with its unit: ns, us, ms or s" in " ".join(invoke("run", "--help").output.split())


def test_scenario_durations_need_units():
    assert invoke("scenario", "vxlan", "--duration", "500").exit_code == 2
    assert invoke("scenario", "pic", "--fail-at", "5").exit_code == 2
    assert invoke("scenario", "pic", "--detection", "10").exit_code == 2
    assert invoke("scenario", "pic", "--detection", "bfd:50").exit_code == 2


# ---- numeric ranges --------------------------------------------------------------------------------

@pytest.mark.parametrize("value", ["0", "-1", "-0.5"])
def test_allreduce_timeout_must_be_positive(value):
    r = invoke("scenario", "allreduce", "--timeout", value)    # used to spin forever
    assert r.exit_code == 2 and "--timeout" in r.output


@pytest.mark.parametrize("args", [("leaf-spine", "--leaves", "0"), ("fat-tree", "--k", "-2"),
                                  ("dragonfly", "--hosts-per-router", "0")])
def test_topology_sizes_must_be_positive(args, tmp_path):
    r = invoke("topo", *args, "--out", str(tmp_path / "t"))
    assert r.exit_code == 2 and "<=x<=" in r.output and not (tmp_path / "t").exists()


@pytest.mark.parametrize("args,ok", [
    (("leaf-spine", "--leaves", "1", "--spines", "1", "--hosts-per-leaf", "253"), True),
    (("leaf-spine", "--leaves", "1", "--spines", "1", "--hosts-per-leaf", "254"), False),
    (("leaf-spine", "--leaves", "256"), False), (("leaf-spine", "--spines", "256"), False),
    (("fat-tree", "--k", "256"), False), (("dragonfly", "--groups", "256"), False),
    (("dragonfly", "--routers-per-group", "256"), False), (("dragonfly", "--hosts-per-router", "254"), False),
    (("dragonfly", "--global-links-per-router", "256"), False)])
def test_topology_sizes_stop_where_the_address_plan_does(args, ok, tmp_path):
    """Host n of leaf i is 10.0.i.(n+1)/24 with the gateway at .1: 253 hosts and 255 leaves fill
    it; one more is refused when the command line is read (exit 2), nothing written."""
    r = invoke("topo", *args, "--out", str(tmp_path / "t"))
    assert r.exit_code == (0 if ok else 2), r.output
    assert (tmp_path / "t").exists() == ok


# ---- seeds, finite floats, process counts ---------------------------------------------------------

@pytest.mark.parametrize("seed,ok", [("0", True), ("18446744073709551615", True), ("18446744073709551616", False),
                                     ("-1", False), ("9" * 5000, False)], ids=lambda v: str(v)[:24])
def test_run_seed_is_an_unsigned_64_bit_number(seed, ok):
    """A negative seed used to run as its absolute value (Python's random), silently."""
    r = invoke("run", "--duration", "1us", "--json", "--seed", seed)
    assert r.exit_code == (0 if ok else 2), r.output
    if not ok:
        assert "--seed" in r.output and len(r.output) < 600


@pytest.mark.parametrize("cmd", [("test", "ipv4_router", __file__), ("scenario", "vxlan"), ("scenario", "incast"),
                                 ("scenario", "pic"), ("scenario", "allreduce")])
def test_every_seed_option_refuses_a_negative_seed(cmd):
    r = invoke(*cmd, "--seed", "-1")
    assert r.exit_code == 2 and "Invalid value for '--seed'" in r.output


@pytest.mark.parametrize("args", [("scenario", "allreduce", "--loss", "nan"), ("scenario", "allreduce", "--timeout", "inf"),
                                  ("scenario", "allreduce", "--timeout", "nan"), ("scenario", "incast", "--pmax", "nan"),
                                  ("scenario", "pic", "--write-rate", "nan"), ("scenario", "pic", "--write-rate", "1e-300"),
                                  ("console", "--timeout", "nan"), ("console", "--timeout", "inf"),
                                  ("scenario", "vxlan", "--size", "1473")])
def test_floats_must_be_finite_and_sizes_in_range(args):
    """NaN passes click's FloatRange (it compares false with both bounds); these used to run on it."""
    r = invoke(*args)
    assert r.exit_code == 2 and f"Invalid value for '{args[-2]}'" in r.output


def test_finite_float_bounds():
    from dataplane.cli.options import FiniteFloat

    t = FiniteFloat(0.0, 0.5)
    assert t.convert("0", None, None) == 0.0 and t.convert("0.5", None, None) == 0.5
    for bad in ("-0.0001", "0.5001", "nan", "inf", "-inf", "1e309"):
        with pytest.raises(click.BadParameter):
            t.convert(bad, None, None)


def test_jobs_stop_at_the_cpus_this_process_may_use():
    """--jobs 1000 used to fork a thousand workers; the CPUs are the affinity mask's."""
    import os

    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    packet = "00" * 60
    assert invoke("run-packet", "ipv4_router", "--packet", packet, "--jobs", str(cpus)).exit_code == 0
    r = invoke("run-packet", "ipv4_router", "--packet", packet, "--jobs", str(cpus + 1))
    assert r.exit_code == 2 and f"more than the {cpus} CPU" in r.output
    assert invoke("run-packet", "ipv4_router", "--packet", packet, "--jobs", "1000").exit_code == 2


@pytest.mark.parametrize("port,ok", [("511", True), ("512", False), ("1" + "0" * 30, False)])
def test_run_packet_port_fits_the_architecture(port, ok):
    """v1model's ports are 9 bits (0..511): 512 used to be cut to 0 by the batch engine, a
    huge one stopped it with an OverflowError."""
    r = invoke("run-packet", "ipv4_router", "--port", port, "--packet", "00" * 60)
    assert r.exit_code == (0 if ok else 1), r.output
    if not ok:
        assert "error: --port" in r.output and "0..511" in r.output


def test_run_packet_port_must_not_be_negative():
    assert invoke("run-packet", "ipv4_router", "--port", "-1", "--packet", "00").exit_code == 2


# ---- output paths that cannot be made: refused before any work -----------------------------------

def test_compile_output_in_a_missing_folder(tmp_path):
    r = invoke("compile", "ipv4_router", "-o", str(tmp_path / "newdir" / "x.json"))
    assert r.exit_code == 2 and "newdir does not exist" in r.output


def test_run_out_under_a_file(tmp_path):
    (tmp_path / "file").write_text("")
    r = invoke("run", "--out", str(tmp_path / "file" / "sub"))
    assert r.exit_code == 2 and "cannot create" in r.output


def test_out_in_proc():
    r = invoke("topo", "leaf-spine", "--out", "/proc/x")
    assert r.exit_code == 2 and "/proc/x" in r.output


# ---- captures ----------------------------------------------------------------------------------------

def _send_pcap(path):
    return invoke("run-packet", "ipv4_router", "--pcap", str(path))


def test_truncated_pcap_is_an_error(tmp_path):
    good = tmp_path / "good.pcap"
    wrpcap(str(good), [Ether() / IP(dst="10.0.1.1")] * 3)
    cut = tmp_path / "cut.pcap"
    cut.write_bytes(good.read_bytes()[:-10])
    r = _send_pcap(cut)
    assert r.exit_code == 1 and "packet 3 is truncated" in r.output
    assert _send_pcap(good).exit_code == 0


def test_empty_pcapng_is_an_error(tmp_path):
    path = tmp_path / "empty.pcapng"
    PcapNgWriter(str(path)).close()
    r = _send_pcap(path)
    assert r.exit_code == 1 and "holds no packets" in r.output


# ---- files of NUL bytes, and a width no one can mean ---------------------------------------------

@pytest.mark.parametrize("option", ["TOPOLOGY", "--events", "--traffic"])
def test_yaml_of_nul_bytes(option, tmp_path):
    nul = tmp_path / "nul.yaml"
    nul.write_bytes(b"\x00" * 64)
    args = [str(nul)] if option == "TOPOLOGY" else [option, str(nul)]
    r = invoke("run", "--duration", "1us", *args)
    assert r.exit_code == 1 and f"{nul}" in r.output and "special characters" in r.output
    assert len([line for line in r.output.splitlines() if "error" in line]) == 1


def test_compile_a_huge_bit_width(tmp_path):
    src = tmp_path / "big.p4"
    src.write_text("header h_t { bit<100000000> f; }\n")
    r = invoke("compile", str(src))
    assert r.exit_code == 1 and f"{src}:1:18: error [too-wide]:" in r.output and "too large" in r.output
