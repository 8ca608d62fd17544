"""Rules on a table's entries as a whole and on bound action arguments (dataplane/lang/check/entries.py).

Each test compiles a small bad program and checks the first error's message and where it
points (the unique source text given as ``at``), as tests/lang/test_errors.py does.
"""
from __future__ import annotations

from dataplane.control.switch import Switch
from dataplane.lang.frontend import compile_source
from dataplane.testing.diagnostics import assert_error
from dataplane.testing.skeleton import v1model_program as v1model

TERNARY = "key = { meta.x : exact; meta.y : ternary; }"


def table(body: str, key: str = TERNARY) -> str:
    """A v1model program whose ingress holds table ``t`` with ``key`` and ``body``."""
    return v1model(ingress_locals=f"""
    action a() {{ }}
    action set(bit<8> v) {{ meta.x = v; }}
    table t {{
        {key}
        actions = {{ a; set; }}
        {body}
    }}""", ingress="t.apply();")


def test_priorities_on_exact_and_lpm_keys_are_rejected():
    """Exact and lpm keys need no priority, so an entry that gives one is an error."""
    src = table("entries = { priority = 10: (1, 2) : set(1); (3, 4) : set(2); }",
                key="key = { meta.x : exact; meta.y : lpm; }")
    assert_error(src, "entries of table 't' cannot have priorities: its keys are all exact or lpm", at="10:",
                 code="table-entry")


def test_first_entry_needs_a_priority_when_later_ones_have_one():
    """Later entries count from the one before, so the first must give a priority."""
    src = table("entries = { (1, 2) : set(1); priority = 40: (3, 4) : set(2); }")
    assert_error(src, "the first entry of table 't' needs a priority", at="(1, 2)", code="table-entry")


def test_priorities_that_fall_below_zero_are_rejected():
    """Counting down by priority_delta from 12 by 10 passes 0 after the second entry."""
    src = table("priority_delta = 10;\n"
                "entries = { priority = 12: (1, 2) : set(1); (3, 4 &&& 0xF) : set(2); (5, _) : set(3); }")
    assert_error(src, "the priorities of table 't' fall below 0 after entry 2 (priority 2)", at="(3, 4 &&& 0xF)",
                 code="table-entry")


def port_after(body: str, key: str, x: int, y: int) -> list[int]:
    """The egress port a packet takes when ingress sets meta.x and meta.y, applies table t
    (``key``, ``body``) and sends the packet to port meta.x (which ``set`` writes)."""
    program = compile_source(v1model(ingress_locals=f"""
    action a() {{ }}
    action set(bit<8> v) {{ meta.x = v; }}
    table t {{
        {key}
        actions = {{ a; set; }}
        {body}
    }}""", ingress=f"meta.x = {x}; meta.y = {y}; t.apply(); sm.egress_spec = (bit<9>) meta.x;"), "ok.p4").program
    return [o.port for o in Switch(program).send(0, b"\x00")]


def test_ascending_priorities_and_const_entries_pass():
    """largest_priority_wins = false counts up; const entries take no priority rules. The
    entries work as written: counting up from 1 by 10, the first entry (1) beats the second
    (11) where both match, and is the one that wins; the const entries match their keys."""
    compile_source(table("largest_priority_wins = false; priority_delta = 10;\n"
                         "entries = { priority = 1: (1, 2) : set(1); (3, 4) : set(2); }"), "ok.p4")
    compile_source(table("const entries = { (1, 2) : set(1); (3, 4) : set(2); }",
                         key="key = { meta.x : exact; meta.y : lpm; }"), "ok.p4")
    ascending = ("largest_priority_wins = false; priority_delta = 10;\n"
                 "entries = { priority = 1: (1, 2 &&& 0xF) : set(5); (1, 2) : set(6); }")
    assert port_after(ascending, TERNARY, 1, 2) == [5]
    # the same priorities (1 and 11, given) where the largest wins: the second entry
    largest = "entries = { priority = 1: (1, 2 &&& 0xF) : set(5); priority = 11: (1, 2) : set(6); }"
    assert port_after(largest, TERNARY, 1, 2) == [6]
    const = "const entries = { (1, 2) : set(7); (3, 4) : set(8); }"
    lpm = "key = { meta.x : exact; meta.y : lpm; }"
    assert port_after(const, lpm, 3, 4) == [8] and port_after(const, lpm, 1, 2) == [7]


def test_entries_before_the_key_are_rejected():
    """Entries are typed against the key, which must come first."""
    src = v1model(ingress_locals="""
    action a() { }
    table t {
        const entries = { 1 : a(); }
        key = { meta.x : exact; }
        actions = { a; }
    }""", ingress="t.apply();")
    assert_error(src, "the entries of table 't' must come after its 'key'", at="const entries", code="table-entry")


def test_duplicate_entry_keys_are_rejected():
    """Two entries with the same keys: the second could never be chosen."""
    src = table("const entries = { (1, 2) : set(1); (3, 4) : set(2); (0x1, 2) : set(3); }",
                key="key = { meta.x : exact; meta.y : exact; }")
    assert_error(src, "entry of table 't' has the same keys as the entry at line", at="(0x1, 2)", code="table-entry")


def test_lpm_mask_must_be_a_prefix():
    """0xE1 is not ones followed by zeros; 0xF0 is."""
    src = table("const entries = { 0x10 &&& 0xF0 : set(1); 0x11 &&& 0xE1 : set(2); }",
                key="key = { meta.x : lpm; }")
    assert_error(src, "invalid mask 0xe1 for lpm key 'meta.x': an lpm mask must be a prefix", at="0x11 &&& 0xE1",
                 code="keyset")


def test_default_action_must_bind_the_same_directional_argument():
    """The actions list binds `b` to meta.x; the default action may not pass meta.y."""
    src = v1model(ingress_locals="""
    action a(inout bit<8> b, bit<8> d) { b = d; }
    table t {
        actions = { a(meta.x); }
        default_action = a(meta.y, 0);
    }""", ingress="t.apply();")
    assert_error(src, "default action 'a': argument 'meta.y' for 'inout b' does not match the actions list, "
                      "which binds 'meta.x'", at="meta.y, 0", code="table")


def test_entry_action_must_bind_the_same_directional_argument():
    """Entries that name every parameter pass the listed value for the directional ones."""
    src = v1model(ingress_locals="""
    action m(in bit<32> g) { }
    table t {
        key = { meta.x : exact; }
        actions = { m(1); }
        const entries = { 5 : m(2); }
    }""", ingress="t.apply();")
    assert_error(src, "entry action 'm': argument '2' for 'in g' does not match the actions list", at="2);",
                 code="table")


def test_bound_argument_written_differently_but_equal_passes():
    """0x1 and 1 are the same value: the default action matches the actions list, and runs
    with g = 1, d = 2 (meta.x = 3 sends the packet to port 3)."""
    program = compile_source(v1model(ingress_locals="""
    action m(in bit<8> g, bit<8> d) { meta.x = g + d; }
    table t {
        key = { meta.x : exact; }
        actions = { m(0x1); }
        default_action = m(1, 2);
    }""", ingress="t.apply(); sm.egress_spec = (bit<9>) meta.x;"), "ok.p4").program
    assert [o.port for o in Switch(program).send(0, b"\x00")] == [3]


def test_bound_struct_argument_compares_fields_by_name():
    """`{ a = 1, b = 2 }` and `{ b = 2, a = 1 }` are the same struct value; the default action
    reads v.a = 1 (port 1), not the first-written field's 2."""
    program = compile_source(v1model(decls="struct p_t { bit<8> a; bit<8> b; }", ingress_locals="""
    action m(in p_t v) { meta.x = v.a; }
    table t {
        key = { meta.x : exact; }
        actions = { m({ a = 1, b = 2 }); }
        default_action = m({ b = 2, a = 1 });
    }""", ingress="t.apply(); sm.egress_spec = (bit<9>) meta.x;"), "ok.p4").program
    assert [o.port for o in Switch(program).send(0, b"\x00")] == [1]


def test_table_without_default_needs_core_noaction():
    """No default_action means NoAction, which core.p4 declares; without it there is nothing to run."""
    src = """control c() {
    table t { actions = { } }
    apply { t.apply(); }
}
control proto();
package top(proto p);
top(c()) main;
"""
    assert_error(src, "table 't' has no default_action, so it defaults to NoAction, but there is no NoAction",
                 at="table t", code="table")
    assert_error("action NoAction(bit<1> x) { }\n" + src, "NoAction is not core.p4's action", at="table t",
                 code="table")


def test_action_listed_twice_is_rejected():
    """Each action appears once in a table's actions."""
    src = table("", key="key = { meta.x : exact; }").replace("actions = { a; set; }", "actions = { a; set; a; }")
    assert_error(src, "action 'a' is listed twice in the actions of table 't'", at="a; }", code="duplicate")


def test_default_action_before_the_actions_list_is_rejected():
    """The default action names an action of the list, which must come first."""
    src = v1model(ingress_locals="""
    action a() { }
    table t {
        default_action = a;
        actions = { a; }
    }""", ingress="t.apply();")
    assert_error(src, "the default_action of table 't' must come after its 'actions' list", at="default_action = a;",
                 code="table")


def test_entries_on_a_table_without_a_key_are_rejected():
    """p4c: a table with no key property, or with ``key = {}`` (issue3442.p4), takes no entries;
    an empty list is fine."""
    for key in ("", "key = { }"):
        src = table("const entries = { _ : set(1); }", key=key)
        assert_error(src, "entries cannot be specified for table 't', which has no key", at="const entries",
                     code="table-entry")
        assert port_after("const entries = { }", key, 4, 0) == [4]


def test_a_lone_wildcard_entry_matches_the_whole_key():
    """A lone ``_`` (or ``default``) covers a key of two fields, as p4c types it as don't-care
    rather than a one-element tuple."""
    two = "key = { meta.x : ternary; meta.y : ternary; }"
    assert port_after("const entries = { (4, _) : set(5); _ : set(7); }", two, 4, 0) == [5]
    assert port_after("const entries = { (4, _) : set(5); _ : set(7); }", two, 3, 0) == [7]
    assert port_after("const entries = { (4, _) : set(5); default : set(7); }", two, 3, 0) == [7]
    assert_error(table("const entries = { (4) : set(7); }", key=two),
                 "entry has 1 key value(s), table 't' has 2 key(s)", at="(4)", code="table-entry")
