"""``preprocess(..., sandboxed=True)``: text from someone else (a P4Runtime client's device config)
reaches the bundled architecture includes and no other file, and its errors say nothing of any
file, not even whether it exists."""
from __future__ import annotations

from pathlib import Path

import pytest

from dataplane.errors import CompileError
from dataplane.lang.frontend import compile_source
from dataplane.lang.preprocess.directives import bundled_includes, preprocess
from dataplane.resources import include_dir

SECRET = "secret_token_4711"


def _refused(text: str, filename: str) -> str:
    with pytest.raises(CompileError) as info:
        preprocess(text=text, filename=filename, sandboxed=True)
    return info.value.render()


@pytest.fixture
def secret(tmp_path) -> Path:
    path = tmp_path / "secret.p4"
    path.write_text(f"{SECRET} x;\n")
    return path


def test_every_include_outside_the_bundled_folder_is_refused_by_name(secret, monkeypatch):
    """Absolute paths, paths next to the including text, ``..`` out of the bundled folder,
    include directories and names built by macros are all refused, and the message names
    the include but carries no byte of the file."""
    monkeypatch.chdir(secret.parent)
    up = "../" * 12 + str(secret).lstrip("/")
    cases = [f'#include "{secret}"', f"#include <{secret}>", '#include "secret.p4"', "#include <secret.p4>",
             f"#include <{up}>", f'#define F "{secret}"\n#include F', "#include <core.p4/../../../x>"]
    for line in cases:
        message = _refused(line + "\n", str(secret.parent / "main.p4"))
        assert SECRET not in message
        assert "is refused" in message and "bundled" in message, message
    with pytest.raises(CompileError) as info:
        preprocess(text='#include "secret.p4"\n', filename="main.p4", include_dirs=[secret.parent], sandboxed=True)
    assert SECRET not in info.value.render() and "is refused" in info.value.render()


def test_a_refusal_does_not_tell_whether_the_file_exists(secret, tmp_path):
    """The error for a file that exists and one that does not differ only in the name."""
    there = _refused(f'#include "{secret}"\n', "cfg")
    absent = _refused(f'#include "{tmp_path / "absent.p4"}"\n', "cfg")
    assert there.replace(str(secret), "X") == absent.replace(str(tmp_path / "absent.p4"), "X")


def test_the_sandbox_opens_no_file_for_a_refused_include(secret, monkeypatch):
    """Not even a stat: the preprocessor never asks the file system about a refused name."""
    asked = []
    for name in ("is_file", "exists", "read_text", "stat"):
        real = getattr(Path, name)
        monkeypatch.setattr(Path, name, lambda self, *a, _real=real, **k: (asked.append(str(self)), _real(self, *a, **k))[1])
    _refused(f'#include "{secret}"\n#include <../{secret.name}>\n', "cfg")
    assert not [p for p in asked if "secret" in p], asked


def test_the_bundled_architecture_files_are_reached():
    """core.p4, v1model.p4, psa.p4 (which includes bmv2/psa.p4), pna.p4 and the eBPF models
    include as usual, quoted or angled; a program using them compiles sandboxed."""
    assert {"core.p4", "v1model.p4", "psa.p4", "bmv2/psa.p4", "pna.p4", "ebpf_model.p4", "xdp_model.p4"} \
        <= bundled_includes()
    assert bundled_includes() == {p.relative_to(include_dir()).as_posix() for p in include_dir().rglob("*.p4")}
    out = preprocess(text='#include <core.p4>\n#include "psa.p4"\n#include <xdp_model.p4>\n', filename="cfg",
                     sandboxed=True)
    assert "PSA_Switch" in out.text and "xdp" in out.text.lower()
    src = (Path(__file__).parents[2] / "control" / "p4runtime" / "rt.p4").read_text()
    assert compile_source(src, "<device config rt.p4>", sandboxed=True).program is not None


def test_without_the_sandbox_includes_work_as_before(secret):
    """The default is unchanged: a quoted include next to the including file is read."""
    out = preprocess(text='#include "secret.p4"\n', filename=str(secret.parent / "main.p4"))
    assert SECRET in out.text
