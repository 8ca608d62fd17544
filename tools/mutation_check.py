"""Plant known bugs one at a time and check that the tests named for each catch it (issue 30).

Each entry of ``MUTATIONS`` is a rule, the file it lives in, a piece of that file's text (found
exactly once) and what to put in its place, and the pytest node ids that must fail when the rule
breaks. For every entry this script writes the mutant, runs only those tests, and puts the file
back, byte for byte and with its modification time, whatever happens: on success, on a failure,
on Ctrl-C or SIGTERM (a journal in the git directory puts back what a killed run left; it is
replayed when the script next starts). It reports each entry as

    caught    the tests failed with the bug planted
    MISSED    they passed: the rule is not proven
    skipped   every named test skipped (no grpc, no root, ...): nothing was learnt
    stale     the text to replace is not in the file exactly once: update the entry
    error     pytest could not run the tests (collection error, unknown node id, timeout)

and exits 0 only if every entry was caught. The tests first run once unmutated (all of them
together): a test that already fails would count as catching anything.

Mutant runs write their bytecode to a temporary folder (``PYTHONPYCACHEPREFIX``), each mutant with
its own modification time, so a stale ``.pyc`` can neither hide a mutant nor outlive one; the
compile caches go to a temporary folder too (``DATAPLANE_CACHE_DIR``).

    python tools/mutation_check.py                 # every entry
    python tools/mutation_check.py -k pfc          # entries whose rule, file or tests contain "pfc"
    python tools/mutation_check.py --list          # the table, nothing run
"""
from __future__ import annotations

import argparse
import base64
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Mutation:
    rule: str
    path: str            # relative to the repository root
    old: str             # found exactly once in the file
    new: str
    tests: tuple[str, ...]


def _m(rule: str, path: str, old: str, new: str, *tests: str) -> Mutation:
    return Mutation(rule, path, old, new, tests)


PFC = "tests/net/devices/test_pfc_thresholds.py::"
P4RT = "tests/control/p4runtime/"
BATCH = "tests/engine/batch/test_batch_fields.py::"
CSUM = "tests/engine/test_checksum_rules.py::"
V1 = "tests/arch/test_v1model_preserved.py::"
PSA = "tests/arch/test_psa_paths.py::"
EBPF = "tests/engine/test_ebpf_externs.py::"
MPI = "tests/net/parallel/test_windows.py::"
PACE = "tests/net/core/test_pacing.py::"
TAP = "tests/net/netns/test_tap_frames.py::"
UNITS = "tests/net/core/test_unit_values.py::"

MUTATIONS: tuple[Mutation, ...] = (
    # ---- PFC ----------------------------------------------------------------------------------------------
    _m("PFC: XOFF when the ingress bytes reach xoff (>=)", "dataplane/net/devices/pfc.py",
       "bytes_[key] >= self.config.xoff", "bytes_[key] > self.config.xoff",
       PFC + "test_xoff_is_sent_when_the_ingress_bytes_reach_the_threshold"),
    _m("PFC: XON when the ingress bytes fall to xon (<=)", "dataplane/net/devices/pfc.py",
       "if b <= self.config.xon and", "if b < self.config.xon and",
       PFC + "test_xon_is_sent_when_the_ingress_bytes_fall_to_the_threshold"),
    _m("PFC: a pause frame takes its Ethernet line time (84 B)", "dataplane/net/devices/link.py",
       "serialize = (link.wire_bytes(len(data)) * 8", "serialize = (len(data) * 8",
       PFC + "test_a_pause_lasts_its_quanta_after_the_pause_frame_s_line_time"),
    _m("PFC: a pause quantum is 512 bit times", "dataplane/net/devices/pfc.py",
       "QUANTUM_BITS = 512", "QUANTUM_BITS = 500",
       PFC + "test_a_pause_lasts_its_quanta_after_the_pause_frame_s_line_time"),
    _m("PFC: a pause frame is a minimum frame (60 B captured, 84 B on the wire)", "dataplane/net/devices/pfc.py",
       "PAUSE_FRAME_LEN = 60 ", "PAUSE_FRAME_LEN = 64 ",
       PFC + "test_a_pause_lasts_its_quanta_after_the_pause_frame_s_line_time",
       PFC + "test_a_pfc_frame_pauses_only_its_class_for_its_quanta"),
    _m("PFC: a PFC frame pauses only the classes it enables", "dataplane/net/devices/tclass.py",
       "for qid, quanta in enumerate(times[:qs.count]):",
       "for qid, quanta in enumerate([max(t or 0 for t in times)] * qs.count):",
       PFC + "test_a_pfc_frame_pauses_only_its_class_for_its_quanta"),
    _m("PFC: a byte queue is full at exactly its capacity (port)", "dataplane/net/devices/link.py",
       "full = self.queue_bytes + size > self.capacity", "full = self.queue_bytes + size >= self.capacity",
       PFC + "test_a_byte_queue_is_full_at_exactly_its_capacity"),
    _m("PFC: a byte queue is full at exactly its capacity (traffic-class port)", "dataplane/net/devices/tclass.py",
       "qs.bytes[qid] + size > cap", "qs.bytes[qid] + size >= cap",
       PFC + "test_a_byte_queue_is_full_at_exactly_its_capacity"),
    # ---- P4Runtime ----------------------------------------------------------------------------------------
    _m("P4Runtime: an LPM prefix as long as the field is accepted", "dataplane/control/p4runtime/table_keys.py",
       "if not 0 < plen <= width:", "if not 0 < plen < width:",
       P4RT + "test_table_entry_rules.py::test_an_lpm_prefix_as_long_as_the_field_is_accepted"),
    _m("P4Runtime: Read filters by the query's priority", "dataplane/control/p4runtime/tables.py",
       "if query.priority and value.priority != query.priority:", "if False:",
       P4RT + "test_table_entry_rules.py::test_a_read_with_a_priority_returns_only_that_priority"),
    _m("P4Runtime: the same election id under two roles is allowed", "dataplane/control/p4runtime/arbitration.py",
       "s is not stream and s.role == role and s.election_id == eid", "s is not stream and s.election_id == eid",
       P4RT + "test_arbitration_roles.py::test_the_same_election_id_under_two_roles_makes_two_primaries"),
    _m("P4Runtime: MODIFY from a member to a direct action reads back the direct action",
       "dataplane/control/p4runtime/tables.py",
       "    if ref is None:\n        state.refs.pop((tid, handle), None)", "    if ref is None:\n        pass",
       P4RT + "test_table_entry_rules.py::test_modify_from_a_member_to_a_direct_action_reads_back_the_direct_action"),
    _m("P4Runtime: DELETE removes the entry's direct meter config", "dataplane/control/p4runtime/tables.py",
       "        state.direct_meter_configs.pop((info.preamble.id, handle), None)\n", "",
       P4RT + "test_table_entry_rules.py::test_delete_takes_the_entry_s_direct_meter_config_with_it"),
    # ---- P4Info ids: each kind's prefix as p4c writes it and p4info.proto defines it ---------------------------
    *(_m(f"P4Info: the {kind} id prefix is {value}", "dataplane/control/p4info/ids.py",
         f"\n{kind} = {value}\n", f"\n{kind} = {wrong}\n",
         "tests/control/p4info/test_ids_p4c.py", "tests/control/p4info/test_programs.py")
      for kind, value, wrong in (("ACTION", "0x01", "0x05"), ("TABLE", "0x02", "0x06"), ("VALUE_SET", "0x03", "0x07"),
                                 ("CONTROLLER_HEADER", "0x04", "0x08"), ("ACTION_PROFILE", "0x11", "0x10"),
                                 ("COUNTER", "0x12", "0x18"), ("DIRECT_COUNTER", "0x13", "0x19"),
                                 ("METER", "0x14", "0x1a"), ("DIRECT_METER", "0x15", "0x1b"),
                                 ("REGISTER", "0x16", "0x1c"), ("DIGEST", "0x17", "0x1d"))),
    # ---- engines and architectures -------------------------------------------------------------------------
    _m("batch engine: a 48-63-bit field inside one 64-bit word is masked", "dataplane/engine/batch/bits.py",
       "return low & m if width < 64 else low", "return low & m if width < 48 else low",
       BATCH + "test_wide_fields_inside_a_word_carry_only_their_own_bits"),
    _m("batch engine: a field across two 64-bit words is masked", "dataplane/engine/batch/bits.py",
       "return (high | low) & m", "return high | low",
       BATCH + "test_wide_fields_inside_a_word_carry_only_their_own_bits"),
    _m("batch engine: a field read from the bytes is masked (48-63 bits)", "dataplane/engine/batch/columns.py",
       "return v & U64(mask(width)) if 8 * span > width else v",
       "return v & U64(mask(width)) if 8 * span > width and width < 48 else v",
       BATCH + "test_wide_fields_inside_a_word_carry_only_their_own_bits"),
    _m("v1model: verify_checksum skipped for an invalid header (extern)", "dataplane/engine/extern_functions.py",
       "if condition and header_valid and algo(algorithm)(packed(data)) != checksum:",
       "if condition and algo(algorithm)(packed(data)) != checksum:",
       CSUM + "test_verify_checksum_is_skipped_when_the_checksum_header_is_invalid"),
    _m("v1model: verify_checksum skipped for an invalid header (generated call)", "dataplane/engine/codegen/calls.py",
       'ins.append(f"{self.expr(ck.expr)}._valid" if isinstance(ck, E.Member) else "True")', 'ins.append("True")',
       CSUM + "test_verify_checksum_is_skipped_when_the_checksum_header_is_invalid"),
    _m("v1model: verify_checksum skipped for an invalid header (inlined csum16)", "dataplane/engine/codegen/inline.py",
       'ck_valid = f"{self.expr(ck.expr)}._valid" if isinstance(ck, E.Member) else "True"', 'ck_valid = "True"',
       CSUM + "test_verify_checksum_is_skipped_when_the_checksum_header_is_invalid"),
    _m("v1model: verify_checksum skipped for an invalid header (batch engine)", "dataplane/engine/batch/calls.py",
       "                if ck_valid is not None:\n                    c &= st.cols[ck_valid]\n", "",
       CSUM + "test_verify_checksum_is_skipped_when_the_checksum_header_is_invalid"),
    _m("csum16: all-zero data gives 0xFFFF (hashes.csum16)", "dataplane/engine/hashes.py",
       "    if not n:\n        return 0xFFFF", "    if not n:\n        return 0",
       CSUM + "test_the_reference_csum16_agrees_on_zeros",
       CSUM + "test_csum16_of_no_data_or_zeros_from_two_headers_is_0xffff"),
    _m("csum16: all-zero data gives 0xFFFF (inlined csum16)", "dataplane/engine/codegen/inline.py",
       'total = f"(0xFFFF if not {n} else', 'total = f"(0 if not {n} else',
       CSUM + "test_csum16_of_all_zero_data_is_0xffff"),
    _m("csum16: all-zero data gives 0xFFFF (batch engine, packed words)", "dataplane/engine/batch/checksums.py",
       "^ U64(0xFFFF), U64(0xFFFF))", "^ U64(0xFFFF), U64(0))",
       CSUM + "test_csum16_of_no_data_or_zeros_from_two_headers_is_0xffff"),
    _m("csum16: no data gives 0xFFFF (batch engine, one header's fields)", "dataplane/engine/batch/checksums.py",
       "out = np.where(st.cols[valid_path], out, U64(0xFFFF))", "out = np.where(st.cols[valid_path], out, U64(0))",
       CSUM + "test_csum16_of_no_data_or_zeros_from_two_headers_is_0xffff"),
    _m("v1model: field list index 0 is preserved", "dataplane/arch/v1model.py",
       "if index is None or index < 0:", "if not index:",
       V1 + "test_field_list_0_survives_resubmit_and_recirculate", V1 + "test_field_list_0_survives_a_clone"),
    _m("v1model: every replica of an ingress clone keeps packet_length", "dataplane/arch/v1model.py",
       "s3.packet_length = len(original)", "s3.packet_length = len(original) if not work else 0",
       V1 + "test_every_replica_of_a_clone_session_keeps_packet_length"),
    _m("v1model: every replica of an egress clone keeps packet_length", "dataplane/arch/v1model.py",
       "s2.packet_length = sm.packet_length", "s2.packet_length = sm.packet_length if not work else 0",
       V1 + "test_every_replica_of_a_clone_session_keeps_packet_length"),
    _m("PSA: resubmit with drop set drops", "dataplane/arch/psa.py",
       "        if iout.drop:", "        if iout.drop and not iout.resubmit:",
       PSA + "test_resubmit_with_drop_set_drops_the_packet"),
    _m("PSA: multicast copies keep class_of_service", "dataplane/arch/psa.py",
       "                c2.class_of_service = cos\n", "",
       PSA + "test_every_multicast_copy_keeps_the_class_of_service"),
    _m("PSA: multicast copies keep class_of_service (all of them)", "dataplane/arch/psa.py",
       "                c2.class_of_service = cos\n", "                c2.class_of_service = cos if not more else 0\n",
       PSA + "test_every_multicast_copy_keeps_the_class_of_service"),
    _m("eBPF: a CounterArray index equal to its size is not counted", "dataplane/engine/ebpf_externs.py",
       "else (0 <= index < self.size):", "else (0 <= index <= self.size):",
       EBPF + "test_a_dense_counter_array_ends_one_below_its_size"),
    _m("eBPF: a CounterArray index equal to its size is refused to the control plane",
       "dataplane/engine/ebpf_externs.py",
       "(not self.sparse and index >= self.size)", "(not self.sparse and index > self.size)",
       EBPF + "test_a_dense_counter_array_ends_one_below_its_size"),
    _m("eBPF: the IPv4 checksum shifts the flags by 13", "dataplane/engine/ebpf_externs.py",
       "((flags << 13) | frag_offset)", "((flags << 12) | frag_offset)",
       EBPF + "test_ipv4_checksum_places_the_flags_above_the_13_bit_offset"),
    # ---- MPI ----------------------------------------------------------------------------------------------
    _m("MPI: a time window excludes its end", "dataplane/net/parallel/runtime.py",
       "while heap and heap[0][0] < end:", "while heap and heap[0][0] <= end:",
       MPI + "test_a_window_excludes_its_end"),
    _m("MPI: the lookahead is the smallest cut-link latency (not the largest)", "dataplane/net/parallel/partition.py",
       "lookahead = min((spec.links[i].latency_ns for i in cut), default=0)",
       "lookahead = max((spec.links[i].latency_ns for i in cut), default=0)",
       MPI + "test_the_lookahead_is_the_smallest_cut_link_latency"),
    _m("MPI: the lookahead counts cut links only", "dataplane/net/parallel/partition.py",
       "lookahead = min((spec.links[i].latency_ns for i in cut), default=0)",
       "lookahead = min((ls.latency_ns for ls in spec.links), default=0)",
       MPI + "test_the_lookahead_is_the_smallest_cut_link_latency"),
    # ---- real time ----------------------------------------------------------------------------------------
    _m("pacer: p99 is the nearest rank (not the rounded interpolation position)", "dataplane/net/core/pacing.py",
       "p99 = ordered[-(-len(ordered) * 99 // 100) - 1]",
       "p99 = ordered[min(len(ordered) - 1, int(0.99 * (len(ordered) - 1) + 0.5))]",
       PACE + "test_p99_lag_is_the_nearest_rank"),
    _m("pacer: p99 is the nearest rank (not the interpolation floor)", "dataplane/net/core/pacing.py",
       "p99 = ordered[-(-len(ordered) * 99 // 100) - 1]", "p99 = ordered[int(0.99 * (len(ordered) - 1))]",
       PACE + "test_p99_lag_is_the_nearest_rank"),
    _m("pacer: the first lag warning at exactly the threshold", "dataplane/net/core/pacing.py",
       "if lag >= self._next_warning and", "if lag > self._next_warning and",
       PACE + "test_lag_warnings_come_at_the_threshold_and_at_each_doubling"),
    _m("pacer: one warning per doubling", "dataplane/net/core/pacing.py",
       "while self._next_warning <= lag:", "while self._next_warning < lag:",
       PACE + "test_lag_warnings_come_at_the_threshold_and_at_each_doubling"),
    _m("pacer: warnings at each doubling (not each step of the threshold)", "dataplane/net/core/pacing.py",
       "self._next_warning *= 2", "self._next_warning += self.warn_lag_ns",
       PACE + "test_lag_warnings_come_at_the_threshold_and_at_each_doubling"),
    _m("TAP: short frames are padded to 60 bytes (not 64)", "dataplane/net/netns/host.py",
       "ETH_MIN_FRAME = 60 ", "ETH_MIN_FRAME = 64 ",
       TAP + "test_short_frames_are_padded_to_60_bytes"),
    _m("TAP: a 59-byte frame is padded too", "dataplane/net/netns/host.py",
       "if len(data) < ETH_MIN_FRAME:", "if len(data) < ETH_MIN_FRAME - 1:",
       TAP + "test_short_frames_are_padded_to_60_bytes"),
    _m("TAP: a frame is timestamped when it was read", "dataplane/net/netns/realtime.py",
       "when = max(sim.now, self.elapsed_ns())", "when = sim.now",
       TAP + "test_a_frame_from_the_tap_enters_at_the_time_it_was_read"),
    # ---- validation ---------------------------------------------------------------------------------------
    _m("units: a fractional queue size is refused", "dataplane/net/core/units.py",
       "if amount <= 0 or amount.denominator != 1:", "if amount <= 0:",
       UNITS + "test_fractional_queue_sizes_are_refused", UNITS + "test_a_fractional_queue_in_a_topology_is_a_located_error"),
    _m("units: Kbps is 1,000 bit/s", "dataplane/net/core/units.py",
       '"kbps": 10**3,', '"kbps": 1024,',
       UNITS + "test_rates_are_si", UNITS + "test_a_64kbps_link_serializes_a_frame_in_bits_over_64000"),
    _m("pfc-deadlock: tail drops are the switch ports' only, host-port drops apart", "dataplane/scenarios/pfc_deadlock.py",
       'for name, m in ports.items() if name.startswith("s"))', "for name, m in ports.items())",
       "tests/scenarios/test_pfc_deadlock.py::test_tail_drops_are_the_switch_ports_drops_only"),
    _m("pfc-deadlock: the watchdog's drops are not tail drops", "dataplane/net/devices/tclass.py",
       "            qst.storm_drops += 1\n            return False",
       "            qst.storm_drops += 1\n            stats.drops += 1\n            return False",
       "tests/scenarios/test_pfc_deadlock.py::test_the_watchdog_breaks_the_deadlock"),
)


# ---- running ------------------------------------------------------------------------------------------------

def _git_path(name: str) -> Path:
    out = subprocess.run(["git", "rev-parse", "--git-path", name], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.strip()
    return (ROOT / out).resolve()


class Restorer:
    """Puts a mutated file back (content and modification time), from memory or, after a killed
    run, from the journal in the git directory."""

    def __init__(self) -> None:
        self.journal = _git_path("dataplane-mutation-journal.json")

    def replay(self) -> str | None:
        """Put back what a killed run left mutated; the path it restored, or None."""
        if not self.journal.exists():
            return None
        saved = json.loads(self.journal.read_text())
        self._put_back(saved)
        self.journal.unlink()
        return saved["path"]

    def plant(self, path: Path, text: bytes, mtime_s: int) -> dict:
        st = path.stat()
        saved = {"path": str(path), "content": base64.b64encode(path.read_bytes()).decode(),
                 "atime_ns": st.st_atime_ns, "mtime_ns": st.st_mtime_ns}
        self.journal.write_text(json.dumps(saved))
        path.write_bytes(text)
        os.utime(path, (mtime_s, mtime_s))
        return saved

    def restore(self, saved: dict) -> None:
        self._put_back(saved)
        self.journal.unlink(missing_ok=True)

    @staticmethod
    def _put_back(saved: dict) -> None:
        path = Path(saved["path"])
        path.write_bytes(base64.b64decode(saved["content"]))
        os.utime(path, ns=(saved["atime_ns"], saved["mtime_ns"]))


def _terminate(signum, frame):   # SIGTERM/SIGHUP: unwind through the finally blocks
    raise SystemExit(128 + signum)


def run_tests(tests: tuple[str, ...], env: dict, work: Path, timeout: float) -> tuple[str, str]:
    """(outcome, detail) of running ``tests``: failed, passed, skipped or error."""
    report = work / "report.xml"
    report.unlink(missing_ok=True)
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", f"--junitxml={report}", *tests]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return "error", f"timed out after {timeout:.0f} s"
    finally:
        if proc.poll() is None:           # interrupted: take the test run down with us
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    text = out.decode(errors="replace")
    tail = "\n".join(text.strip().splitlines()[-15:])
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    if report.exists():
        suite = ET.parse(report).getroot()
        suites = [suite] if suite.tag == "testsuite" else list(suite.iter("testsuite"))
        for s in suites:
            for k in counts:
                counts[k] += int(s.get(k, 0))
    if proc.returncode == 1 and counts["failures"] + counts["errors"]:
        return "failed", tail
    if proc.returncode == 0 and counts["tests"] and counts["skipped"] == counts["tests"]:
        return "skipped", tail
    if proc.returncode == 0 and counts["tests"]:
        return "passed", tail
    return "error", f"pytest exit code {proc.returncode}\n{tail}"


def where(m: Mutation) -> str:
    """``path:line`` of the text the entry replaces (its first non-blank line), or the path alone."""
    path = ROOT / m.path
    text = path.read_text() if path.exists() else ""
    if text.count(m.old) != 1:
        return m.path
    at = text.index(m.old) + len(m.old) - len(m.old.lstrip("\n"))
    return f"{m.path}:{text.count(chr(10), 0, at) + 1}"


def selected(mutations, pattern: str | None):
    """The entries whose rule, file or test ids contain ``pattern`` (any case; the "dataplane/" and
    "tests/" every path starts with are left out, so "tap" does not match them all)."""
    if not pattern:
        return list(mutations)
    p = pattern.lower()

    def text(m: Mutation) -> str:
        return " ".join([m.rule, m.path.removeprefix("dataplane/"), *(t.removeprefix("tests/") for t in m.tests)])
    return [m for m in mutations if p in text(m).lower()]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-k", dest="pattern", help="only entries whose rule, file or test ids contain this text")
    ap.add_argument("--list", action="store_true", help="print the table and stop")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per pytest run (default 600)")
    ap.add_argument("--no-baseline", action="store_true", help="skip the unmutated run of the tests")
    args = ap.parse_args(argv)
    restorer = Restorer()
    left = restorer.replay()
    if left:
        print(f"restored {left}, left mutated by an interrupted run")
    chosen = selected(MUTATIONS, args.pattern)
    if args.list:
        for i, m in enumerate(chosen, 1):
            print(f"{i:2d}. {m.rule}\n    {where(m)}: {m.old.strip()!r} -> {m.new.strip()!r}")
            for t in m.tests:
                print(f"    {t}")
        return 0
    if not chosen:
        print("no entry matches", file=sys.stderr)
        return 2
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _terminate)
    with tempfile.TemporaryDirectory(prefix="mutation-check-") as tmp:
        work = Path(tmp)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(PYTHONPYCACHEPREFIX=str(work / "pycache"), DATAPLANE_CACHE_DIR=str(work / "cache"))
        if not args.no_baseline:
            every = tuple(dict.fromkeys(t for m in chosen for t in m.tests))
            outcome, detail = run_tests(every, env, work, args.timeout * 2)
            if outcome not in ("passed", "skipped"):
                print(f"the tests fail without any mutation ({outcome}); fix them first:\n{detail}")
                return 2
        stamp = int(time.time()) + 10     # every mutant its own mtime (whole seconds, as .pyc records it)
        results = []
        for i, m in enumerate(chosen, 1):
            path = ROOT / m.path
            text = path.read_text() if path.exists() else ""
            planted_at = where(m)
            t0 = time.monotonic()
            if text.count(m.old) != 1:
                outcome, detail = "stale", f"{m.old!r} occurs {text.count(m.old)} times in {m.path}"
            else:
                saved = restorer.plant(path, text.replace(m.old, m.new).encode(), stamp + i)
                try:
                    outcome, detail = run_tests(m.tests, env, work, args.timeout)
                finally:
                    restorer.restore(saved)
            status = {"failed": "caught", "passed": "MISSED"}.get(outcome, outcome)
            results.append(status)
            print(f"{i:2d}. {status:7s} {time.monotonic() - t0:6.1f}s  {m.rule}  [{planted_at}]", flush=True)
            if status not in ("caught", "MISSED"):
                print("    " + detail.replace("\n", "\n    "))
    caught = results.count("caught")
    print(f"\n{caught} of {len(results)} planted bugs caught"
          + "".join(f", {results.count(s)} {s.lower()}" for s in ("MISSED", "skipped", "stale", "error")
                    if results.count(s)))
    return 0 if caught == len(results) else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("interrupted: the file under test was put back", file=sys.stderr)
        sys.exit(130)
