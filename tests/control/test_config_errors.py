"""Config-file errors: pyyaml's several-line messages become one located line."""
from __future__ import annotations

import re

import pytest
import yaml

from dataplane.control.config_errors import ConfigError, yaml_error

LOCATED = re.compile(r"^[^\n:]+:\d+:\d+: error: [^\n]+$")


def _yaml_error(text: str) -> Exception:
    with pytest.raises(yaml.YAMLError) as info:
        yaml.safe_load(text)
    return info.value


def test_parser_error_with_context_is_one_line_at_the_problem():
    text = "switches:\n  s1: {program: x.p4\n  s2: [1, 2\n"
    err = yaml_error(_yaml_error(text), "topo.yaml", text=text)
    assert LOCATED.match(str(err)), str(err)
    assert str(err).startswith("topo.yaml:3:5: error: invalid YAML: expected ',' or '}', but got ':'")
    assert "(while parsing a flow mapping at line 2, column 7)" in str(err)
    assert (err.line, err.column) == (3, 5)


def test_scanner_error_without_context():
    text = "a: b: c\n"
    err = yaml_error(_yaml_error(text), "t.yaml", "cannot read traffic file", text)
    assert str(err) == "t.yaml:1:5: error: cannot read traffic file: mapping values are not allowed here"


def test_reader_error_located_from_the_offset():
    text = "a: 1\nb: \x01\n"
    err = yaml_error(_yaml_error(text), "t.yaml", text=text)
    assert LOCATED.match(str(err)) and str(err).startswith("t.yaml:2:4: error: invalid YAML: unacceptable character")


def test_line_and_column_optional():
    assert str(ConfigError("x", "f", 3)) == "f:3: error: x"
    assert str(ConfigError("x", "f", 3, column=7)) == "f:3:7: error: x"
    assert str(ConfigError("x", "f")) == "f: error: x"
