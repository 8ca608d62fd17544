"""v1model registers make their cells when first used (``externs.Register``), not when the switch
is built, so switches that never run a packet hold none (issue 36's memory): a register is built
with no cells; reading or writing it from outside the generated code (``values``, the control
plane) makes them, all zero, in the same object the generated code bound; and a switch makes all
of its registers' cells before its pipeline first runs, so a program's very first packet reads
zero and its write stays. The allreduce fat-tree's switches that carried no packet keep none,
and its ``--json`` is the same as with cells made at build time."""
from __future__ import annotations

from typing import Any

import pytest
from click.testing import CliRunner

from dataplane.cli import main
from dataplane.control.switch import Switch
from dataplane.engine import externs
from dataplane.engine.externs import Register
from dataplane.lang.frontend import compile_source
from dataplane.testing.skeleton import v1model_program

# r[idx] += add; the header carries back what r[idx] held before the packet.
SOURCE = v1model_program(
    decls="header t_t { bit<16> idx; bit<32> add; bit<32> old; }",
    headers="t_t t;",
    parser="state start { pkt.extract(hdr.t); transition accept; }",
    ingress_locals="register<bit<32>>(1000) r;",
    ingress="""bit<32> v;
        r.read(v, (bit<32>)hdr.t.idx);
        hdr.t.old = v;
        r.write((bit<32>)hdr.t.idx, v + hdr.t.add);
        sm.egress_spec = 1;""")


def packet(idx: int, add: int) -> bytes:
    return idx.to_bytes(2, "big") + add.to_bytes(4, "big") + bytes(4)


def old_of(out: bytes) -> int:
    return int.from_bytes(out[6:10], "big")


def switch() -> Switch:
    """A switch as a simulated fabric builds it: its registers made when first used."""
    return Switch(compile_source(SOURCE, "warm.p4").program, name="s1", lazy_registers=True)


def test_a_loaded_switch_makes_its_cells_when_built_unless_told_otherwise() -> None:
    """Built on its own (the P4Runtime server's bounded compile child builds the program so), a
    switch pays for its registers at once: a program too large for the child's memory fails there."""
    program = compile_source(SOURCE, "warm.p4").program
    assert not Switch(program, name="a").dp.instances["IG.r"].cold
    assert Switch(program, name="b", lazy_registers=True).dp.instances["IG.r"].cold


def test_a_register_is_built_without_cells_and_makes_them_in_place_on_first_use() -> None:
    r = Register("r", 4, 32)
    bound = r.cells                       # what the generated code binds
    assert r.cold and len(bound) == 0
    assert r.cp_read(3) == 0              # a read makes them: all zero
    assert not r.cold and r.values is bound and list(bound) == [0, 0, 0, 0]
    r.reset()
    assert r.values is bound


@pytest.mark.parametrize("use", ["values", "write", "cp_write", "read"])
def test_every_way_in_from_outside_the_generated_code_makes_the_cells(use: str) -> None:
    r = Register("r", 3, 65)              # past 64 bits: a list, made in place too
    bound = r.cells
    {"values": lambda: r.values, "write": lambda: r.write(None, 2, 5), "cp_write": lambda: r.cp_write(2, 5),
     "read": lambda: r.read(None, 2, 65)}[use]()
    assert r.cells is bound and len(bound) == 3 and bound[2] == (0 if use in ("values", "read") else 5)


def test_a_register_of_size_zero_is_never_cold() -> None:
    assert not Register("r", 0, 8).cold


def test_reset_leaves_a_cold_register_cold() -> None:
    r = Register("r", 4, 8)
    r.reset()
    assert r.cold


def test_the_switch_makes_its_cells_before_its_pipeline_first_runs() -> None:
    """The first packet, at the register's last index, reads 0 and its write stays: cells the
    generated code indexed before they were made would fail (and drop the packet)."""
    sw = switch()
    reg = sw.dp.instances["IG.r"]
    assert reg.cold
    out = sw.send(0, packet(999, 7))
    assert not reg.cold and len(out) == 1 and old_of(out[0].data) == 0
    assert reg.cp_read(999) == 7
    assert old_of(sw.send(0, packet(999, 5))[0].data) == 7 and reg.cp_read(999) == 12
    assert old_of(sw.send(0, packet(0, 1))[0].data) == 0


def test_a_control_plane_write_before_any_packet_is_what_the_first_packet_reads() -> None:
    sw = switch()
    sw.register_write("r", 5, 41)
    assert old_of(sw.send(0, packet(5, 1))[0].data) == 41 and sw.register_read("r", 5) == 42


def test_two_switches_of_one_program_keep_their_own_cells() -> None:
    program = compile_source(SOURCE, "warm.p4").program
    a, b = Switch(program, name="a", lazy_registers=True), Switch(program, name="b", lazy_registers=True)
    a.send(0, packet(1, 9))
    assert a.register_read("r", 1) == 9 and b.register_read("r", 1) == 0
    assert b.dp.instances["IG.r"].cells is not a.dp.instances["IG.r"].cells


ALLREDUCE = ["scenario", "allreduce", "--topology", "fat-tree", "--k", "4", "--elements", "2048", "--mode", "ina",
             "--loss", "0.05", "--json"]


def test_the_fat_tree_switches_that_carry_nothing_keep_no_cells() -> None:
    from dataplane.scenarios.allreduce import run_allreduce

    nets: list[Any] = []
    run_allreduce("ina", elements=256, topology="fat-tree", fat_tree_k=4, on_network=nets.append)
    switches = nets[0].switches.values()
    idle = [s for s in switches if s.packets_in == 0]
    busy = [s for s in switches if s.packets_in > 0]
    assert idle and busy            # k=4: aggregation switch 2 of each pod and cores 2-4 carry nothing
    assert all(r.cold for s in idle for r in registers(s))
    assert all(not r.cold for s in busy for r in registers(s))


def registers(node: Any) -> list[Register]:
    return [i for i in node.dp.instances.values() if isinstance(i, Register)]


def test_the_allreduce_runs_as_with_cells_made_at_build_time(monkeypatch: Any) -> None:
    lazy = CliRunner().invoke(main, ALLREDUCE)
    assert lazy.exit_code == 0, lazy.output
    made = Register.__init__

    def eager(self: Register, *args: Any) -> None:
        made(self, *args)
        self.warm()

    monkeypatch.setattr(externs.Register, "__init__", eager)
    built = CliRunner().invoke(main, ALLREDUCE)
    assert built.exit_code == 0, built.output
    assert lazy.output == built.output and '"retransmissions"' in lazy.output
