"""Tests for dataplane.lang.preprocess.directives: includes, macros, conditionals, comments and source mapping."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from dataplane.errors import CompileError, Span
from dataplane.lang.preprocess.directives import MAX_INCLUDE_DEPTH, preprocess


def pp(text: str, **kwargs):
    return preprocess(text=text, filename="main.p4", **kwargs)


def lines(result) -> list[str]:
    return result.text.split("\n")[:-1]


def errors_of(text: str, **kwargs) -> list:
    with pytest.raises(CompileError) as info:
        preprocess(text=text, filename="main.p4", **kwargs)
    return info.value.diagnostics


def words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# --- output shape and line mapping -------------------------------------------------

def test_plain_text_keeps_one_output_line_per_input_line():
    """Without directives the text is unchanged and every line maps to itself."""
    result = pp("header h_t {\n    bit<8> f;\n}\n")
    assert lines(result) == ["header h_t {", "    bit<8> f;", "}"]
    assert result.line_map == [("main.p4", 1), ("main.p4", 2), ("main.p4", 3)]
    assert result.files == {"main.p4": "header h_t {\n    bit<8> f;\n}\n"}


def test_crlf_line_endings_are_accepted():
    """Windows line endings do not leave carriage returns in the output."""
    result = pp("#define X 1\r\nbit<8> a = X;\r\n")
    assert lines(result) == ["", "bit<8> a = 1;"]


def test_path_argument_reads_file_and_names_it_as_given(tmp_path, monkeypatch):
    """The main file is named in line_map exactly as the caller wrote its path."""
    write(tmp_path / "prog.p4", "a;\nb;\n")
    monkeypatch.chdir(tmp_path)
    result = preprocess("prog.p4")
    assert result.line_map == [("prog.p4", 1), ("prog.p4", 2)]


def test_missing_main_file_is_a_compile_error(tmp_path):
    """An unreadable main file is reported as a CompileError, not an OSError."""
    with pytest.raises(CompileError, match="cannot read"):
        preprocess(tmp_path / "nope.p4")


def test_path_and_text_are_mutually_exclusive():
    """Exactly one of path and text must be given."""
    with pytest.raises(TypeError):
        preprocess()
    with pytest.raises(TypeError):
        preprocess("x.p4", text="")


# --- includes ------------------------------------------------------------------------

def test_bundled_include_is_inserted_where_the_directive_is():
    """<v1model.p4> pulls in core.p4; both are named by their bare file names."""
    result = pp("// top\n#include <v1model.p4>\ncontrol C();\n")
    out = lines(result)
    assert result.line_map[0] == ("main.p4", 1)
    assert result.line_map[1] == ("main.p4", 2) and out[1] == ""
    assert result.line_map[-1] == ("main.p4", 3) and out[-1] == "control C();"
    included = {name for name, _ in result.line_map}
    assert included == {"main.p4", "v1model.p4", "core.p4"}
    assert set(result.files) == {"main.p4", "v1model.p4", "core.p4"}
    # every non-empty output line starts with the same word as the original line it maps to
    for i, (name, line) in enumerate(result.line_map):
        original = result.files[name].split("\n")[line - 1]
        if out[i].strip():
            assert original.split()[0] == out[i].split()[0]


def test_line_map_is_exact_inside_included_file(tmp_path):
    """An included file's lines map to its own line numbers, and text resumes after it."""
    write(tmp_path / "inc.p4", "one\ntwo\n")
    main = write(tmp_path / "main.p4", 'a\n#include "inc.p4"\nb\n')
    result = preprocess(main)
    assert lines(result) == ["a", "", "one", "two", "b"]
    assert [line for _, line in result.line_map] == [1, 2, 1, 2, 3]
    assert result.line_map[2][0] == str(tmp_path / "inc.p4")


def test_quoted_include_is_relative_to_including_file(tmp_path, monkeypatch):
    """A quoted include nested in a subdirectory resolves next to its includer and is named by joining paths."""
    write(tmp_path / "dir" / "main.p4", '#include "sub/a.p4"\n')
    write(tmp_path / "dir" / "sub" / "a.p4", '#include "b.p4"\nA\n')
    write(tmp_path / "dir" / "sub" / "b.p4", "B\n")
    write(tmp_path / "dir" / "b.p4", "WRONG\n")
    monkeypatch.chdir(tmp_path)
    result = preprocess("dir/main.p4")
    assert [l for l in lines(result) if l] == ["B", "A"]
    assert ("dir/sub/b.p4", 1) in result.line_map
    assert ("dir/sub/a.p4", 2) in result.line_map


def test_quoted_include_falls_back_to_include_dirs(tmp_path):
    """A quoted include not found next to its includer is searched like an angle include."""
    write(tmp_path / "lib" / "defs.p4", "DEFS\n")
    main = write(tmp_path / "src" / "main.p4", '#include "defs.p4"\n')
    result = preprocess(main, include_dirs=[tmp_path / "lib"])
    assert "DEFS" in lines(result)


def test_angle_include_searches_include_dirs_before_bundled(tmp_path):
    """A user include directory can shadow the bundled core.p4."""
    write(tmp_path / "core.p4", "MY_CORE\n")
    result = pp("#include <core.p4>\n", include_dirs=[tmp_path])
    assert "MY_CORE" in lines(result)
    assert result.line_map[1] == (str(tmp_path / "core.p4"), 1)


def test_angle_include_does_not_look_next_to_includer(tmp_path):
    """<x> never resolves relative to the including file."""
    write(tmp_path / "local.p4", "X\n")
    main = write(tmp_path / "main.p4", "#include <local.p4>\n")
    with pytest.raises(CompileError, match="cannot find include file 'local.p4'"):
        preprocess(main)


def test_missing_include_reports_directive_location():
    """The error points at the '#' of the #include line, with the line's text attached."""
    [diag] = errors_of("a;\n  #include \"nope.p4\"\n")
    assert diag.message == "cannot find include file 'nope.p4'"
    assert diag.span == Span("main.p4", 2, 3)
    assert diag.source_line == '  #include "nope.p4"'
    assert diag.render().splitlines()[-1] == "  ^"


def test_include_guard_prevents_double_inclusion():
    """Including v1model.p4 and core.p4 again adds no second copy of the declarations."""
    result = pp("#include <core.p4>\n#include <v1model.p4>\n#include <core.p4>\n")
    assert words(result.text).count("NoAction") == 1
    assert words(result.text).count("V1Switch") == 1


def test_recursive_include_stops_at_depth_limit(tmp_path):
    """A file including itself without a guard is stopped at the nesting limit with one error."""
    main = write(tmp_path / "self.p4", '#include "self.p4"\n')
    with pytest.raises(CompileError) as info:
        preprocess(main)
    [diag] = info.value.diagnostics
    assert "nested too deeply" in diag.message and str(MAX_INCLUDE_DEPTH) in diag.message


def test_malformed_include_is_an_error():
    """#include needs "file" or <file>."""
    [diag] = errors_of("#include core.p4\n")
    assert "#include expects" in diag.message


# --- the bundled prelude -----------------------------------------------------------

def test_v1model_defaults_to_version_20180101():
    """By default ports are bit<9> and register indices bit<32>."""
    text = pp("#include <v1model.p4>\n").text
    assert "PortId_t" not in text
    assert "__v1model_version = 20180101;" in text
    assert "extern register<T> {" in text
    assert "void read(out T result, in bit<32> index);" in text


def test_if_compares_version_numbers():
    """With V1MODEL_VERSION >= 20200408 the PortId_t variant and index type parameters are used."""
    for text in (pp("#define V1MODEL_VERSION 20200408\n#include <v1model.p4>\n").text,
                 pp("#include <v1model.p4>\n", defines={"V1MODEL_VERSION": "20210101"}).text):
        assert "typedef bit<9> PortId_t;" in text
        assert "PortId_t ingress_port;" in text
        assert "extern register<T, I> {" in text and "extern counter<I> {" in text


def test_prelude_declares_the_v1model_names():
    """The prelude declares every extern, enum and block the architecture needs."""
    names = set(words(pp("#include <v1model.p4>\n").text))
    expected = {
        "packet_in", "packet_out", "verify", "NoAction", "exact", "ternary", "lpm", "static_assert",
        "range", "optional", "selector", "standard_metadata_t", "CounterType", "MeterType", "HashAlgorithm",
        "CloneType", "counter", "direct_counter", "meter", "direct_meter", "register", "action_profile",
        "action_selector", "Checksum16", "random", "digest", "mark_to_drop", "hash", "verify_checksum",
        "update_checksum", "verify_checksum_with_payload", "update_checksum_with_payload", "clone", "clone3",
        "clone_preserving_field_list", "resubmit", "resubmit_preserving_field_list", "recirculate",
        "recirculate_preserving_field_list", "truncate", "assert", "assume", "log_msg", "Parser",
        "VerifyChecksum", "Ingress", "Egress", "ComputeChecksum", "Deparser", "V1Switch",
    }
    assert expected <= names


def test_meter_color_macros_are_defined_by_v1model():
    """Programs can use V1MODEL_METER_COLOR_* after including v1model.p4."""
    result = pp("#include <v1model.p4>\nx = V1MODEL_METER_COLOR_RED;\n")
    assert lines(result)[-1] == "x = 2;"


# --- macros --------------------------------------------------------------------------

def test_object_macro_substitutes_whole_identifiers_only():
    """FOO is replaced, FOOBAR and the letters inside the literal 8w0 are not."""
    result = pp("#define FOO 42\n#define w 3\nFOO FOOBAR _FOO 8w0 (FOO)\n")
    assert lines(result)[2] == "42 FOOBAR _FOO 8w0 (42)"


def test_macro_is_not_substituted_inside_strings_or_comments():
    """String literals keep macro names; comments are blanked anyway."""
    result = pp('#define N 7\n@name("N") N // N\n')
    assert lines(result)[1] == '@name("N") 7'


def test_recursive_macro_expansion_with_self_reference_guard():
    """Macros expand through other macros; a macro never expands inside its own expansion."""
    result = pp("#define A B + 1\n#define B C\n#define C 5\n#define SELF SELF + 1\n"
                "#define P Q\n#define Q P\nA SELF P\n")
    assert lines(result)[-1] == "5 + 1 SELF + 1 P"


def test_undef_removes_macro():
    """After #undef the name is left alone and no longer counts as defined."""
    result = pp("#define X 1\n#undef X\nX\n#ifdef X\nyes\n#endif\n")
    assert lines(result)[2] == "X"
    assert "yes" not in result.text


def test_function_like_macros_expand_their_arguments():
    """Arguments are expanded before they replace the parameters; a function-like macro name
    without '(' is left alone; nested invocations work."""
    out = lines(pp("#define ONE 1\n#define ADD(a, b) ((a) + (b))\nx = ADD(ONE, ADD(2, 3)) + ADD;\n"))
    assert out[2] == "x = ((1) + (((2) + (3)))) + ADD;"


def test_stringify_paste_and_variadic_macros():
    """`#x` quotes the argument as written, `a ## b` pastes, `...` collects `__VA_ARGS__`."""
    src = ("#define S(x) #x\n#define CAT(a, b) a ## b\n#define CALL(f, ...) f(__VA_ARGS__)\n"
           "a = S(hello  \"w\");\nb = CAT(in, 8);\nc = CALL(g, 1, 2);\nd = CALL(h);\n")
    assert lines(pp(src))[3:7] == ['a = "hello \\"w\\"";', "b = in8;", "c = g(1, 2);", "d = h();"]


def test_a_macro_invocation_may_span_lines():
    """Arguments may continue on the next lines; the expansion stays on the first, the line count is kept."""
    out = lines(pp("#define ADD(a, b) ((a) + (b))\nx = ADD(1,\n  2);\ny;\n"))
    assert out[1:4] == ["x = ((1) + (2));", "", "y;"]


@pytest.mark.parametrize("src, message, col", [
    ("#define F(a, b) a\nx = F(1);\n", "macro 'F' takes 2 argument(s), got 1", 5),
    ("#define F(a) a\nx = F(1;\n", "unterminated argument list invoking macro 'F'", 5),
    ("#define F(a, a) a\n", "duplicate parameter in the definition of macro 'F'", 1),
    ("#define F(a b) a\n", "invalid parameter list in the definition of macro 'F'", 1),
])
def test_bad_macro_definitions_and_invocations_are_located(src, message, col):
    [diag] = errors_of(src)
    assert diag.message == message and diag.span.col == col


def test_target_bmv2_is_predefined_and_defines_override():
    """__TARGET_BMV2__ is 1 like p4c-bm2-ss; the defines argument adds and overrides macros."""
    assert lines(pp("__TARGET_BMV2__\n"))[0] == "1"
    result = pp("__TARGET_BMV2__ EXTRA\n", defines={"__TARGET_BMV2__": "9", "EXTRA": "e"})
    assert lines(result)[0] == "9 e"


@pytest.mark.parametrize("name, value, problem", [
    ("", "1", "the macro name is missing"),
    ("1X", "2", "'1X' is not a macro name"),
    ("A B", "1", "'A B' is not a macro name"),
    ("F(x)", "x", "'F(x)' is not a macro name"),
    ("defined", "1", "'defined' cannot be used as a macro name"),
    ("A", "1\n#define B 2", "the value of macro 'A' runs over more than one line"),
])
def test_defines_without_a_valid_name_are_refused(name, value, problem):
    """A macro given through ``defines`` needs an identifier for a name and a one-line value, as
    cpp's -D: anything else is a located error, not a macro no program can name."""
    [diag] = errors_of("X\n", defines={name: value})
    assert diag.code == "pp-macro" and problem in diag.message


def test_defines_with_valid_names_are_taken_as_they_are():
    """The names either side of the refused ones: '_', a digit after the first character, an empty value."""
    assert lines(pp("_ A1 E|\n", defines={"_": "u", "A1": "a", "E": ""}))[0] == "u a |"


# --- conditionals ----------------------------------------------------------------------

@pytest.mark.parametrize("expr, expected", [
    ("1 + 2 * 3 == 7", True),
    ("(1 + 2) * 3 == 9", True),
    ("!0 && 1", True),
    ("0 || 0", False),
    ("0x10 == 16 && 0X1f == 31", True),
    ("10 - 4 - 3 == 3", True),
    ("-7 / 2 == -3 && 7 % 3 == 1", True),
    ("1 <= 1 && 2 >= 1 && 1 != 2 && 2 > 1 && 1 < 2", True),
    ("UNDEFINED_NAME == 0", True),
    ("defined(FOO) && defined FOO", True),
    ("defined(BAR) || defined BAR", False),
    ("FOO > 10", True),
    ("20180101L >= 20200408", False),
])
def test_if_expression_operators(expr, expected):
    """#if evaluates integers, macros, defined() and the C operators with C precedence."""
    result = pp(f"#define FOO 11\n#if {expr}\nyes\n#else\nno\n#endif\n")
    assert [l for l in lines(result) if l] == (["yes"] if expected else ["no"])


@pytest.mark.parametrize("expr", ["", "1 +", "(1", "1 / 0", "defined(", "defined(X", "1 $ 2", "1 2", "0x"])
def test_bad_if_expression_is_an_error(expr):
    """A malformed #if expression is reported at the directive."""
    [diag] = errors_of(f"\n#if {expr}\n#endif\n")
    assert diag.message.startswith("invalid #if expression")
    assert diag.span == Span("main.p4", 2, 1)


def test_nested_conditionals_and_elif_chain():
    """Only the first true branch of a group is kept, and groups nest."""
    text = ("#define V 2\n"
            "#if V == 1\none\n#elif V == 2\ntwo\n"
            "#ifdef V\ninner\n#else\nnot_inner\n#endif\n"
            "#elif V == 2\nagain\n#else\nother\n#endif\n"
            "#ifndef V\nnv\n#elif 1\nelif_after_ifndef\n#endif\n")
    assert [l for l in lines(pp(text)) if l] == ["two", "inner", "elif_after_ifndef"]


def test_skipped_region_only_processes_conditionals():
    """In a false group only conditionals count, and a group already taken does not evaluate its #elif."""
    text = ("#if 0\n#error no\n#include <missing.p4>\n#define Z 1\n#foo\n#pragma x\n"
            "#if 1 +\n#elif garbage (\n#endif\n#endif\n"
            "#if 1\n#elif garbage (\n#endif\nZ\n")
    assert lines(pp(text))[-1] == "Z"


def test_conditional_directive_errors():
    """#else/#elif/#endif without #if, and #else/#elif after #else, are errors."""
    diags = errors_of("#endif\n#else\n#elif 1\n#if 1\n#else\n#else\n#elif 1\n#endif\n")
    assert [d.message for d in diags] == ["#endif without #if", "#else without #if", "#elif without #if",
                                          "#else after #else", "#elif after #else"]
    assert [d.span.line for d in diags] == [1, 2, 3, 6, 7]


def test_unterminated_if_is_reported_at_opening_directive():
    """A group left open at the end of its file is reported where it was opened."""
    diags = errors_of("#ifdef A\n#endif\n  #ifndef B\n#if 1\n")
    assert [d.message for d in diags] == ["unterminated #ifndef (missing #endif)",
                                          "unterminated #if (missing #endif)"]
    assert [(d.span.line, d.span.col) for d in diags] == [(3, 3), (4, 1)]


def test_ifdef_without_name_is_an_error():
    """#ifdef needs a macro name."""
    [diag] = errors_of("#ifdef\n#endif\n")
    assert diag.message == "#ifdef expects a macro name"


def test_conditionals_must_balance_within_each_file(tmp_path):
    """An #if opened in an included file cannot be closed by its includer."""
    write(tmp_path / "open.p4", "#if 1\n")
    main = write(tmp_path / "main.p4", '#include "open.p4"\n#endif\n')
    with pytest.raises(CompileError) as info:
        preprocess(main)
    messages = [(d.message, Path(d.span.file).name) for d in info.value.diagnostics]
    assert messages == [("unterminated #if (missing #endif)", "open.p4"), ("#endif without #if", "main.p4")]


# --- splicing and comments ---------------------------------------------------------------

def test_backslash_newline_splicing_keeps_line_count():
    """A spliced line is emitted on its first line; its continuation lines become empty."""
    result = pp("#define LONG 1 + \\\n  2\nx = LONG;\nbit<8> \\\n  y;\nz;\n")
    assert lines(result) == ["", "", "x = 1 +   2;", "bit<8>   y;", "", "z;"]
    assert [line for _, line in result.line_map] == [1, 2, 3, 4, 5, 6]


def test_comments_are_blanked_keeping_columns_and_lines():
    """Comments become spaces (newlines kept), so later tokens keep their line and column."""
    result = pp("a /* one\ntwo */ b // c\nd\n")
    assert lines(result) == ["a", "       b", "d"]
    assert result.locate(2, 8) == Span("main.p4", 2, 8)


def test_comment_markers_inside_strings_are_kept():
    """// and /* inside string literals (e.g. annotations) are not comments."""
    result = pp('@name("a//b") @name("/*x*/") t; // gone\n')
    assert lines(result) == ['@name("a//b") @name("/*x*/") t;']


def test_directives_inside_comments_are_ignored():
    """A directive inside a block comment or after // does nothing."""
    result = pp("/*\n#define X 1\n#error no\n*/\n// #include <nope.p4>\nX\n")
    assert lines(result)[-1] == "X"


def test_unterminated_block_comment_is_an_error():
    """A /* without */ is reported where it starts."""
    [diag] = errors_of("a;\nb; /* open\nc;\n")
    assert diag.message == "unterminated comment"
    assert diag.span == Span("main.p4", 2, 4)


# --- other directives ------------------------------------------------------------------

def test_pragma_is_unsupported():
    """#pragma has no meaning at this level and is rejected."""
    [diag] = errors_of("#pragma once\n")
    assert diag.message == "unsupported: #pragma"


def test_error_directive_reports_its_message_and_warning_is_ignored():
    """#error stops compilation with its text; #warning is silently accepted."""
    [diag] = errors_of("#warning careful\n\n#error V1MODEL too old\n")
    assert diag.message == "#error V1MODEL too old"
    assert diag.span.line == 3


def test_unknown_directive_is_an_error():
    """An unknown directive name is reported with the name."""
    [diag] = errors_of("#foo bar\n")
    assert diag.message == "unknown preprocessor directive '#foo'"


def test_line_directive_renumbers_following_lines():
    """#line N "f" makes the next line N of file f in line_map."""
    result = pp('a\n#line 100 "gen.p4"\nb\nc\n#line 7\nd\n')
    assert result.line_map[2:4] == [("gen.p4", 100), ("gen.p4", 101)]
    assert result.line_map[5] == ("gen.p4", 7)


def test_all_errors_are_reported_together():
    """Preprocessing continues after an error so one run reports every problem."""
    diags = errors_of("#include <nope.p4>\n#pragma x\n#define F(a a) a\n#bogus\n")
    assert len(diags) == 4
    assert "cannot find include file 'nope.p4'" in str(CompileError(diags))


# --- source mapping ---------------------------------------------------------------------

def test_locate_maps_columns_through_macro_expansion():
    """Columns after a length-changing expansion map back to the original columns."""
    result = pp("#define LONGER 123456789\nx = LONGER + y;\n")
    out = lines(result)[1]
    assert out == "x = 123456789 + y;"
    assert 1 in result.col_maps
    assert result.locate(2, out.index("y") + 1) == Span("main.p4", 2, 14)
    assert result.locate(2, out.index("123") + 1) == Span("main.p4", 2, 5)
    assert result.locate(2, out.index("789") + 3).col <= 10  # inside the expansion: within the macro name
    assert result.locate(2, 1) == Span("main.p4", 2, 1)


def test_locate_maps_columns_after_empty_expansion():
    """A macro expanding to nothing still maps later columns correctly."""
    result = pp("#define NOTHING\na NOTHING b\n")
    out = lines(result)[1]
    assert result.locate(2, out.index("b") + 1) == Span("main.p4", 2, 11)


def test_locate_maps_into_included_files_and_past_the_end():
    """locate follows line_map, and a position after the last line keeps counting."""
    result = pp("#include <core.p4>\nlast\n")
    n = len(result.line_map)
    assert result.locate(2, 1).file == "core.p4"
    assert result.locate(n, 3) == Span("main.p4", 2, 3)
    assert result.locate(n + 1, 1) == Span("main.p4", 3, 1)


def test_source_line_returns_original_text():
    """source_line prints the original line, comments and macros included."""
    result = pp("#define X 1\ny = X; // note\n")
    assert result.source_line(result.locate(2, 1)) == "y = X; // note"
    assert result.source_line(Span("core.p4", 1, 1)) is None
    included = pp("#include <core.p4>\n")
    span = next(included.locate(i + 1, 1) for i, l in enumerate(lines(included)) if "extern packet_in" in l)
    assert included.source_line(span) == "extern packet_in {"


def test_comment_markers_inside_a_multi_line_string_are_text():
    """A string literal runs to its closing quote across lines, and `//` or `/* */` inside it
    stays (p4c runs cpp with -C and its lexer reads the string whole: SAI P4's @entry_restriction);
    comments outside strings go, and a quote never closed ends at its line."""
    out = pp('@r("\n  // keep me\n  a /* and me */ != 0;\n") // gone\nx; /* gone */\n').text
    assert '"\n  // keep me\n  a /* and me */ != 0;\n"' in out and "gone" not in out
    out = pp('#define X 1\nbad " unclosed // gone\ny;\n').text
    assert "gone" not in out and "y;" in out
