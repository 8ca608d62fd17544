"""Run a p4c STF test against a switch the way p4c's BMv2 driver does (``bmv2stf.py``).

Control commands apply in file order as packets are sent; outputs are collected per
port. Only ports named in some ``packet`` or ``expect`` line are watched; on each, the
i-th received packet is compared with the i-th ``expect`` (prefix match unless ``$``,
``*`` nibbles are don't-care), and the counts must agree (P4-REFERENCE.md §2.5).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from dataplane.control import ops as O
from dataplane.control.config_errors import ConfigError, control_plane_code
from dataplane.control.keys import ExactKey
from dataplane.control.loader import _apply
from dataplane.control.switch import Switch
from dataplane.errors import DataplaneError
from dataplane.testing import stf as S
from dataplane.testing import stf_ebpf
from dataplane.testing.stf_expect import describe_mismatch, expect_matches
from dataplane.testing.stf_keys import (order_action_args, resolve_key_name, resolve_suffix, stf_default_key,
                                        stf_key_to_match)


@dataclass
class StfResult:
    """The outcome of one STF run: ``passed`` and, when not, what differed on which port."""

    passed: bool
    failures: list[str] = field(default_factory=list)
    outputs: dict[int, list[bytes]] = field(default_factory=dict)
    packets_sent: int = 0

    def report(self) -> str:
        if self.passed:
            counts = ", ".join(f"port {p}: {len(v)}" for p, v in sorted(self.outputs.items())) or "no output"
            return f"PASS ({self.packets_sent} packet(s) sent; received {counts})"
        return "FAIL\n" + "\n".join(self.failures)


def run_stf(switch: Switch, commands: list, filename: str = "<stf>", *, engine: str = "packet",
            echo=None) -> StfResult:
    """Apply ``commands`` (from ``parse_stf``) to ``switch`` and check the expectations.

    For the eBPF family the control commands may use the C names p4c's eBPF drivers use
    (``stf_ebpf``); the packet semantics are the device's own. ``engine`` (``auto``,
    ``batch``, ``packet``): with the batch engine, the packets between two control
    commands go through as one batch; ``echo`` is told which engine ran and why.
    """
    from dataplane.engine.batch.select import choose

    pipeline, why = choose(switch.dp, engine)
    if echo is not None:
        echo(f"engine: {why}")
    commands = stf_ebpf.translate(switch, commands)
    expects: dict[int, list[S.Expect]] = {}
    watched: set[int] = set()
    received: dict[int, list[bytes]] = {}
    sent = 0
    pending: list = []

    def flush() -> None:
        if pending:
            for result in switch.process_batch([c.data for c in pending], [c.port for c in pending], engine="batch"):
                for out in result.outputs:
                    received.setdefault(out.port, []).append(out.data)
            pending.clear()

    for cmd in commands:
        where = (filename, getattr(cmd, "line", 0) or getattr(cmd, "source", ("", 0))[1])
        try:
            if isinstance(cmd, S.Packet):
                watched.add(cmd.port)
                sent += 1
                if pipeline is not None:
                    pending.append(cmd)
                    continue
                for out in switch.send(cmd.port, cmd.data):
                    received.setdefault(out.port, []).append(out.data)
                continue
            if not isinstance(cmd, S.Expect):
                flush()
            if isinstance(cmd, S.Expect):
                watched.add(cmd.port)
                expects.setdefault(cmd.port, []).append(cmd)
            elif isinstance(cmd, S.Add):
                _add(switch, cmd, where)
            elif isinstance(cmd, S.SetDefault):
                t = switch.table_names()[resolve_suffix(cmd.table, switch.table_names(), "table", where)]
                action, params = _action_args(switch, t, cmd.action, cmd.args, where)
                switch.table_set_default(t.qualified_name, action, params)
            elif isinstance(cmd, (S.NoPacket, S.Wait, S.Remove, S.CheckCounter)):
                continue  # the BMv2 driver ignores these too
            elif isinstance(cmd, O.Op):
                _apply(switch, cmd)
        except ConfigError:
            raise
        except DataplaneError as err:
            raise ConfigError(str(err), *where, code=control_plane_code(err)) from err
    try:
        flush()
    except DataplaneError as err:
        raise ConfigError(str(err), filename, 0, code=control_plane_code(err)) from err
    failures: list[str] = []
    for port in sorted(watched):
        want = expects.get(port, [])
        got = received.get(port, [])
        for i, (exp, data) in enumerate(zip(want, got)):
            if not expect_matches(exp.pattern, exp.exact_end, data):
                failures.append(f"port {port}, packet {i} (expect at {filename}:{exp.line}):\n"
                                + describe_mismatch(exp.pattern, exp.exact_end, data))
        if len(got) != len(want):
            extra = "".join(f"\n  unexpected: {d.hex()}" for d in got[len(want):])
            missing = "".join(f"\n  missing (expect at {filename}:{e.line}): {e.pattern}" for e in want[len(got):])
            failures.append(f"port {port}: expected {len(want)} packet(s), received {len(got)}{extra}{missing}")
    return StfResult(not failures, failures, received, sent)


def run_stf_file(program: str | Path, stf_path: str | Path, *, seed: int = 0) -> StfResult:
    """Compile ``program``, load it into a fresh switch and run the STF file against it."""
    switch = Switch.from_file(program, seed=seed)
    commands = S.load_stf(str(stf_path))
    return run_stf(switch, commands, str(stf_path))


def _add(switch: Switch, cmd: S.Add, where) -> None:
    tables = switch.table_names()
    t = tables[resolve_suffix(cmd.table, tables, "table", where)]
    keys = [t.table.keys[i] for i in t.match_fields]
    widths = [w for _, w in t.key_layout]
    given = {resolve_key_name(name, [k.name for k in keys], where): text for name, text in cmd.keys}
    match = []
    for k, w in zip(keys, widths):
        text = given.get(k.name)
        match.append(stf_key_to_match(text, k.match_kind, w, where) if text is not None
                     else stf_default_key(k.match_kind, where))
    action, params = _action_args(switch, t, cmd.action, cmd.args, where)
    priority = cmd.priority
    if t.match.uses_priority and priority is None:
        priority = 1
    switch.table_add(t.qualified_name, action, match, params, priority)


def _action_args(switch: Switch, t, action: str, args, where):
    names = switch.action_names(t)
    short = names[resolve_suffix(action, names, "action", where)]
    _, act = switch._action(t, short)
    texts = order_action_args(list(args), [p.name for p in act.data_params], short, where)
    return short, [_number(x, where) for x in texts]


def _number(text: str, where) -> int:
    spec = stf_key_to_match(text, "exact", 1 << 20, where)
    assert isinstance(spec, ExactKey)
    return spec.value
