"""The generated module is compiled once per source, and every switch still gets its own state."""
from __future__ import annotations

from dataplane.control.switch import Switch
from dataplane.engine.backend import compile_pipeline
from dataplane.lang.frontend import compile_source
from dataplane.testing.skeleton import v1model_program

SOURCE = v1model_program(
    decls="header t_t { bit<8> a; bit<8> res; }",
    headers="t_t h;",
    parser="state start { pkt.extract(hdr.h); transition accept; }",
    ingress_locals="""
    register<bit<8>>(1) seen;
    action set(bit<8> v) { hdr.h.res = v; }
    table t { key = { hdr.h.a : exact; } actions = { set; NoAction; } default_action = NoAction(); }""",
    ingress="""
    bit<8> n; seen.read(n, 0); seen.write(0, n + 1);
    t.apply(); sm.egress_spec = 1;""",
)


def test_recompiling_the_same_source_reuses_the_generated_module():
    first = compile_pipeline(compile_source(SOURCE).program)
    program = compile_source(SOURCE).program
    second = compile_pipeline(program)
    assert second.program is program
    assert second.namespace is first.namespace     # one set of code objects for a JIT to warm


def test_switches_of_a_shared_module_keep_their_own_tables_and_registers():
    a = Switch(compile_source(SOURCE).program)
    b = Switch(compile_source(SOURCE).program)
    assert a.dp.pipeline.namespace is b.dp.pipeline.namespace
    a.table_add("t", "set", [7], [42])
    out_a = a.send(0, bytes([7, 0]))
    out_b = b.send(0, bytes([7, 0]))
    assert out_a[0].data == bytes([7, 42])
    assert out_b[0].data == bytes([7, 0])
    a.send(0, bytes([1, 0]))
    assert (a.register_read("seen", 0), b.register_read("seen", 0)) == (2, 1)


def test_a_control_without_parameters_compiles():
    """A control with no parameters (unused by the package) still makes valid Python."""
    src = v1model_program(decls="control Unused() { apply { } }")
    pipeline = compile_pipeline(compile_source(src).program)
    assert "C_Unused" in pipeline.namespace["build"].__code__.co_varnames


def test_inlined_register_access_sees_control_plane_writes_and_resets():
    """v1model bit<W> registers are read and written as lists in the generated code
    (codegen.inline.inline_register): control-plane writes and resets must reach that list."""
    s = Switch(compile_source(SOURCE).program)
    assert ".read_keep(" not in s.dp.pipeline.source and "xv_IG_seen[" in s.dp.pipeline.source
    s.register_write("seen", 0, 255)
    s.send(0, bytes([1, 0]))
    assert s.register_read("seen", 0) == 0            # 255 + 1 wraps in bit<8>
    s.send(0, bytes([1, 0]))
    s.dp.instances["IG.seen"].reset()
    s.send(0, bytes([1, 0]))
    assert s.register_read("seen", 0) == 1
