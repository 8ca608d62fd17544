"""The catalogue of diagnostic codes (``dataplane.diagnostics``) against the code that reports them:
every error and warning the front end raises names a code from the catalogue, and every code in
the catalogue is raised somewhere. The check reads the source (``ast``), so a new ``error(...)``
call without a code, or with a code nobody catalogued, fails here."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

import dataplane
from dataplane.diagnostics import CODES, ERRORS, WARNINGS, WarningPolicy, catalogue_table
from dataplane.errors import CompileError
from dataplane.lang.frontend import compile_source

LANG = Path(dataplane.__file__).parent / "lang"
_REPORTERS = {"error", "warning", "warn"}   # Checker.error, DiagnosticSink.error/warning, Lint.warn (code 2nd)


def _code_values(node: ast.expr) -> list[str] | None:
    """The string constants a code expression can take, or None if it is not a constant choice."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        a, b = _code_values(node.body), _code_values(node.orelse)
        return a + b if a is not None and b is not None else None
    return None


def _reports() -> list[tuple[str, int, ast.expr | None]]:
    """(file, line, code expression) of every diagnostic the front end creates."""
    out = []
    for path in sorted(LANG.rglob("*.py")):   # lang/ and its folders (preprocess/, check/, ...)
        tree = ast.parse(path.read_text())
        forwarders = {f.name for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and f.name in _REPORTERS}
        for n in ast.walk(tree):
            if not isinstance(n, ast.Call):
                continue
            name = n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", "")
            if name in _REPORTERS or name == "Diagnostic":
                code = next((k.value for k in n.keywords if k.arg == "code"), None)
                if code is None and name == "warn" and len(n.args) >= 2:
                    code = n.args[1]
                elif code is None and name != "Diagnostic" and len(n.args) >= 3:
                    code = n.args[2]
                if name in forwarders and isinstance(code, ast.Name) and code.id == "code":
                    continue            # a reporter passing its caller's code on
                out.append((str(path.relative_to(LANG)), n.lineno, code))
    return out


def test_every_diagnostic_of_the_front_end_has_a_catalogue_code():
    reports = _reports()
    assert len(reports) > 250          # the preprocessor, parser, checker, inliner and lint
    bad = []
    for file, line, code in reports:
        if isinstance(code, ast.Name) and code.id == "code":
            continue
        values = _code_values(code) if code is not None else None
        if values is None or any(v not in CODES for v in values):
            bad.append(f"{file}:{line}: {ast.unparse(code) if code is not None else 'no code'}")
    assert not bad, "\n".join(bad)


def test_every_catalogue_code_is_reported_somewhere():
    used = {v for _, _, code in _reports() if code is not None for v in (_code_values(code) or ())}
    assert set(CODES) - used == set()


def test_codes_are_short_stable_names_with_a_one_line_meaning():
    assert not set(ERRORS) & set(WARNINGS)
    for code, meaning in CODES.items():
        assert code == code.lower() and " " not in code and "_" not in code, code
        assert meaning and "\n" not in meaning, code
    assert catalogue_table().count("\n") == len(CODES) + 1


@pytest.mark.parametrize("src, code", [
    ("#if 1\n", "pp-directive"),
    ("#include \"nowhere.p4\"\n", "pp-include"),
    ("#error stop here\n", "pp-error"),
    ("/* never closed\n", "unterminated-comment"),
    ("control c() { apply { } \n", "syntax"),
    ("const bit<8> x = 1 / 0;\n", "division-by-zero"),
])
def test_the_code_is_printed_with_the_message(src, code):
    """``file:line:col: error [code]: message``, for the preprocessor and parser as for the checker."""
    with pytest.raises(CompileError) as info:
        compile_source(src, "c.p4")
    d = info.value.diagnostics[0]
    assert d.code == code
    assert str(info.value).startswith(f"c.p4:{d.span.line}:{d.span.col}: error [{code}]: ")


def test_a_warning_policy_refuses_unknown_codes():
    with pytest.raises(ValueError, match="unknown warning code"):
        WarningPolicy(frozenset({"type-mismatch"}))


def test_the_documentation_lists_the_catalogue():
    # the site's diagnostics page, in the repository next to tests/: CI installs the package, so not beside dataplane/
    page = (Path(__file__).resolve().parents[1] / "docs" / "reference" / "diagnostics.md").read_text()
    assert catalogue_table() in page
