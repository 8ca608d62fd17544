"""`dataplane compile` on hostile programs, run as a user (or a script feeding it files) runs it:
a separate process each, with a timeout. Whatever the input, the command ends in bounded time
with exit status 1 (an error in the program, not 3, a bug in dataplane), says ``error`` in a
line of its own, prints no Python traceback and no megabytes of messages.

The inputs are the ones that used to hang the front end (macro and inlining bombs), crash it
(RecursionError at 20,000 nested ifs, ValueError on a 400,000-digit number) or could exhaust
memory by design (types of 2**41 fields, a header stack of a billion headers, a 17 MiB file),
and the plain junk a fuzzer starts with (random bytes, NUL bytes, endless lines).
"""
from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Callable

import pytest

from dataplane.testing.forks import CommandForks, Finished

pytestmark = pytest.mark.no_pypy  # a process per input: slow under PyPy, and not about the interpreter

TIMEOUT = 60        # seconds a compile may take here: the slowest input takes about 6 s
HEAD = "#include <core.p4>\n#include <v1model.p4>\n"


def control(body: str, decls: str = "", locals_: str = "") -> str:
    return f"{HEAD}{decls}struct m_t {{ bit<8> x; bit<8> y; }}\ncontrol C(inout m_t m) {{\n{locals_}\napply {{\n{body}\n}}\n}}\n"


def doubling_controls(n: int) -> str:
    decls = "control C0(inout bit<8> v) { apply { v = v + 1; } }\n" + "".join(
        f"control C{i}(inout bit<8> v) {{ C{i - 1}() a; apply {{ a.apply(v); a.apply(v); }} }}\n" for i in range(1, n))
    return control("top.apply(m.x);", decls, f"C{n - 1}() top;")


HOSTILE: dict[str, Callable[[], str | bytes]] = {
    "macro bomb": lambda: "#define A0 x\n" + "".join(f"#define A{i} A{i - 1} A{i - 1}\n" for i in range(1, 41))
    + "A40\n",
    "function macro bomb": lambda: "#define F0(x) x x\n" + "".join(f"#define F{i}(x) F{i - 1}(F{i - 1}(x))\n"
                                                                   for i in range(1, 30)) + "F29(y)\n",
    "self-referencing macro": lambda: "#define F(x) F(x) F(x)\nF(1)\n",
    "mutually recursive macros": lambda: "#define F(x) G(x) G(x)\n#define G(x) F(x) F(x)\nF(1)\n",
    "20,000 nested macro arguments": lambda: "#define F(x) x\n" + "F(" * 20_000 + "1" + ")" * 20_000 + "\n",
    "macro chain of 20,000": lambda: "".join(f"#define M{i} M{i + 1}\n" for i in range(20_000)) + "M0\n",
    "#if with 20,000 parentheses": lambda: "#if " + "(" * 20_000 + "1" + ")" * 20_000 + "\n#endif\n",
    "#if with 100,000 negations": lambda: "#if " + "!" * 100_000 + "1\n#endif\n",
    "#if multiplying for ever": lambda: "#if " + "99999999999999999*" * 50_000 + "1\n#endif\njunk\n",
    "20,000 nested ifs": lambda: control("if (m.x == 1) {\n" * 20_000 + "m.y = 1;" + "}\n" * 20_000),
    "20,000 nested ifs without braces": lambda: control("if (m.x == 1)\n" * 20_000 + "m.y = 1;"),
    "5,000 else-ifs": lambda: control("if (m.x == 0) { m.y = 1; }\n" + "else if (m.x == 1) { m.y = 2; }\n" * 5_000),
    "20,000 nested blocks": lambda: control("{\n" * 20_000 + "m.y = 1;" + "}\n" * 20_000),
    "10,000 nested parentheses": lambda: control("m.x = " + "(m.y + " * 10_000 + "1" + ")" * 10_000 + ";"),
    "10,000 parentheses around a name, then junk": lambda: control("m.x = " + "(" * 10_000 + "m.y" + ")" * 10_000
                                                                   + ";\njunk"),
    "a sum of 20,000 terms": lambda: control("m.x = " + "m.y + " * 20_000 + "1;"),
    "100,000 unary minuses": lambda: control("m.x = " + "-" * 100_000 + "m.y;"),
    "a member chain of 20,000": lambda: control("m" + ".x" * 20_000 + " = 1;"),
    "10,000 nested list expressions": lambda: "const tuple<bit<8>> c = " + "{" * 10_000 + "1" + "}" * 10_000 + ";\n",
    "10,000 nested tuple types": lambda: "typedef " + "tuple<" * 10_000 + "bit<8>" + ">" * 10_000 + " t;\n",
    "5,000 struct types nested by name": lambda: control(
        "", "struct s0 { bit<8> f; }\n" + "".join(f"struct s{i} {{ s{i - 1} f; }}\n" for i in range(1, 5000)), "s4999 v;"),
    "3,000 controls nested by instance": lambda: control(
        "top.apply(m.x);", "control C0(inout bit<8> v) { apply { v = 1; } }\n" + "".join(
            f"control C{i}(inout bit<8> v) {{ C{i - 1}() c; apply {{ c.apply(v); }} }}\n" for i in range(1, 3000)),
        "C2999() top;"),
    "an inlining bomb": lambda: doubling_controls(40),
    "a type of 2**41 fields": lambda: control(
        "", "typedef tuple<bit<8>, bit<8>> t0;\n" + "".join(f"typedef tuple<t{i - 1}, t{i - 1}> t{i};\n"
                                                            for i in range(1, 40)), "t39 v;"),
    "a stack of a billion headers": lambda: HEAD + "header h_t { bit<8> a; }\nstruct s { h_t[1000000000] hs; }\n",
    "constants squared 40 times": lambda: "const int c0 = 1 << 2000;\n" + "".join(
        f"const int c{i} = c{i - 1} * c{i - 1};\n" for i in range(1, 40)),
    "a 400,000-digit number": lambda: "const bit<8> c = " + "9" * 400_000 + ";\n",
    "a 400,000-digit hex number": lambda: "const bit<8> c = 0x" + "f" * 400_000 + ";\n",
    "a width of 100,000 digits": lambda: "const bit<" + "9" * 100_000 + "> c = 0;\n",
    "a #line of 10,000 digits": lambda: "#line " + "9" * 10_000 + "\nx\n",
    "random bytes": lambda: bytes(range(256)) * 400 + os.urandom(100_000),
    "NUL bytes": lambda: "\0" * 100_000,
    "a NUL in a declaration": lambda: "const bit<8> c\0 = 1;\n",
    "a 200 KB line with an error at its end": lambda: "const bit<8> c = 1 " + "+ 1 " * 50_000 + "+;\n",
    "a 5 MB comment line, then junk": lambda: "// " + "x" * 5_000_000 + "\njunk\n",
    "a 2 MB identifier": lambda: "const bit<8> " + "a" * 2_000_000 + " = 1\n",
    "a 2 MB unterminated string": lambda: 'const string s = "' + "x" * 2_000_000 + "\n",
    "an unterminated comment": lambda: "/*" + " x" * 1_000_000 + "\n",
    "a file over 16 MiB": lambda: "// a comment line of no consequence at all\n" * (17 * 2**20 // 44),
    "20,000 syntax errors": lambda: "x y z;\n" * 20_000,
    "a file that includes itself": lambda: '#include "self.p4"\n',
    "20,000 nested #ifs never closed": lambda: "#if 1\n" * 20_000,
}


@pytest.fixture(scope="module")
def forks():
    driver = CommandForks()
    yield driver
    driver.close()


def dataplane_compile(forks: CommandForks, path: Path) -> tuple[Finished, float]:
    start = time.monotonic()
    r = forks.run(["compile", "--check", str(path)], path.parent, timeout=TIMEOUT * 2)
    return r, time.monotonic() - start


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_program_is_a_clear_error_in_bounded_time(name, tmp_path, forks):
    content = HOSTILE[name]()
    path = tmp_path / "self.p4"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    r, took = dataplane_compile(forks, path)
    assert took < TIMEOUT, f"{name}: {took:.1f} s"
    assert r.returncode == 1, f"{name}: exit {r.returncode}\n{r.stderr[-2000:]}"
    assert re.search(r"(^|: )error( \[[a-z-]+\])?: ", r.stderr, re.M), r.stderr[-2000:]
    assert "Traceback" not in r.stderr + r.stdout and "internal error" not in r.stderr
    assert len(r.stderr) < 64 * 1024, f"{name}: {len(r.stderr)} characters of messages"
