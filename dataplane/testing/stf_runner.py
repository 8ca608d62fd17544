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
from dataplane.ir.node import Visitor
from dataplane.testing import stf as S
from dataplane.testing import stf_ebpf
from dataplane.testing.stf_expect import describe_mismatch, expect_matches
from dataplane.testing.stf_keys import (
    order_action_args,
    resolve_key_name,
    resolve_suffix,
    stf_default_key,
    stf_key_to_match,
)


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
    run = _StfRun(switch, pipeline is not None)
    for cmd in commands:
        where = (filename, getattr(cmd, "line", 0) or getattr(cmd, "source", ("", 0))[1])
        try:
            run.visit(cmd, where)
        except ConfigError:
            raise
        except DataplaneError as err:
            raise ConfigError(str(err), *where, code=control_plane_code(err)) from err
    try:
        run.flush()
    except DataplaneError as err:
        raise ConfigError(str(err), filename, 0, code=control_plane_code(err)) from err
    expects, watched, received, sent = run.expects, run.watched, run.received, run.sent
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


class _StfRun(Visitor):
    """Applies STF commands in file order, one ``visit_<Command>`` per kind; packets queue up
    for the batch engine (``batched``) until the next control command or the end."""

    def __init__(self, switch: Switch, batched: bool):
        self.switch = switch
        self.batched = batched
        self.expects: dict[int, list[S.Expect]] = {}
        self.watched: set[int] = set()
        self.received: dict[int, list[bytes]] = {}
        self.sent = 0
        self.pending: list[S.Packet] = []

    def flush(self) -> None:
        if self.pending:
            pending = self.pending
            for result in self.switch.process_batch([c.data for c in pending], [c.port for c in pending],
                                                    engine="batch"):
                for out in result.outputs:
                    self.received.setdefault(out.port, []).append(out.data)
            pending.clear()

    def visit_Packet(self, cmd: S.Packet, where) -> None:
        self.watched.add(cmd.port)
        self.sent += 1
        if self.batched:
            self.pending.append(cmd)
            return
        for out in self.switch.send(cmd.port, cmd.data):
            self.received.setdefault(out.port, []).append(out.data)

    def visit_Expect(self, cmd: S.Expect, where) -> None:
        self.watched.add(cmd.port)
        self.expects.setdefault(cmd.port, []).append(cmd)

    def visit_Add(self, cmd: S.Add, where) -> None:
        self.flush()
        _add(self.switch, cmd, where)

    def visit_SetDefault(self, cmd: S.SetDefault | O.SetDefault, where) -> None:
        if isinstance(cmd, O.Op):   # the CLI's table_set_default has the same class name
            return self.visit_Op(cmd, where)
        self.flush()
        switch = self.switch
        t = switch.table_names()[resolve_suffix(cmd.table, switch.table_names(), "table", where)]
        action, params = _action_args(switch, t, cmd.action, cmd.args, where)
        switch.table_set_default(t.qualified_name, action, params)

    def visit_Op(self, cmd: O.Op, where) -> None:
        self.flush()
        _apply(self.switch, cmd)

    def generic_visit(self, cmd, where) -> None:
        # no_packet, wait, remove, check_counter: the BMv2 driver ignores these too
        self.flush()


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
