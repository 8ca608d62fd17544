"""The shape of the package and the repository: no import circles, ``dataplane.net`` in its
layers, no binaries or build output tracked by git."""
from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import pytest

import dataplane

pytestmark = pytest.mark.no_pypy  # interpreter-independent and slow under PyPy

PACKAGE = Path(dataplane.__file__).parent
REPO = Path(__file__).resolve().parents[1]

# Each subpackage of dataplane.net may import those listed before it (and itself);
# ``capture`` reads objects by their attributes and needs none of them.
NET_LAYERS = ["core", "topology", "devices", "hosts", "netns", "apps", "rdma", "collectives", "loadbalance", "training",
              "fabric", "parallel"]
NET_ALONE = {"capture"}
NET_FORBIDDEN = ("dataplane.engine", "dataplane.ir")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PACKAGE.rglob("*.py") if "_data" not in p.parts}


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """Every module of the package that ``path`` imports, at the top or inside a function."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{a.name}" for a in node.names] + [node.module]
        else:
            continue
        for name in names:
            # ``from pkg import mod`` names a module; ``from mod import thing`` names the module
            while name and name not in modules:
                name = name.rpartition(".")[0]
            if name.startswith("dataplane"):
                found.add(name)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(path, modules) - {name} for name, path in modules.items()}


def test_no_import_circle_between_modules():
    """No module of the package imports, directly or through others, a module that imports it
    (a package's own ``__init__`` is not counted as an importer of its children)."""
    graph = _graph()
    state: dict[str, int] = {}
    cycles = []

    def visit(name: str, stack: list[str]) -> None:
        state[name] = 1
        stack.append(name)
        for dep in sorted(graph[name]):
            if name.startswith(dep + "."):      # a module importing its package's __init__
                continue
            if state.get(dep) == 1:
                cycles.append(stack[stack.index(dep):] + [dep])
            elif dep not in state:
                visit(dep, stack)
        stack.pop()
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [])
    assert not cycles, "import circles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def _net_part(name: str) -> str | None:
    parts = name.split(".")
    return parts[2] if len(parts) > 2 and parts[:2] == ["dataplane", "net"] else None


def test_net_modules_live_in_subpackages():
    """Every module of dataplane.net sits in one of its subpackages, none beside them."""
    loose = [p.name for p in (PACKAGE / "net").glob("*.py") if p.name != "__init__.py"]
    assert loose == []
    subpackages = {p.name for p in (PACKAGE / "net").iterdir() if (p / "__init__.py").exists()}
    assert subpackages == set(NET_LAYERS) | NET_ALONE


def test_net_subpackages_import_only_layers_below():
    """core < topology < devices < hosts < netns < apps < fabric < parallel; capture stands alone; none of them
    reaches into the engine or the IR (programs come in through arch and control)."""
    wrong = []
    for name, deps in _graph().items():
        part = _net_part(name)
        if part is None:
            continue
        allowed = {part} if part in NET_ALONE else set(NET_LAYERS[:NET_LAYERS.index(part) + 1]) | NET_ALONE
        for dep in deps:
            if dep.startswith(NET_FORBIDDEN):
                wrong.append(f"{name} imports {dep}")
            dep_part = _net_part(dep)
            if dep_part is not None and dep_part not in allowed:
                wrong.append(f"{name} imports {dep}")
    assert not wrong, "\n".join(sorted(wrong))


def test_layers_outside_net_do_not_import_net():
    """ir, lang, engine, arch and control know nothing of the fabric."""
    lower = ("dataplane.ir", "dataplane.lang", "dataplane.engine", "dataplane.arch", "dataplane.control")
    wrong = [f"{name} imports {dep}" for name, deps in _graph().items() if name.startswith(lower)
             for dep in deps if dep.startswith("dataplane.net")]
    assert not wrong, "\n".join(sorted(wrong))


MAX_TRACKED_BYTES = 1_000_000
BUILD_SUFFIXES = (".whl", ".tar.gz", ".tgz", ".zip", ".egg", ".so", ".pyd", ".dll", ".dylib", ".o", ".a",
                  ".pyc", ".pyo", ".exe", ".jar", ".class")


def _tracked_files() -> list[str]:
    if not (REPO / ".git").exists():
        pytest.skip("not run from a git checkout")
    out = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True, check=True)
    return [f for f in out.stdout.decode().split("\0") if f]


def test_git_tracks_no_large_file():
    """Nothing over 1 MB is committed: data and binaries stay out of the history."""
    big = [f"{f} ({(REPO / f).stat().st_size:,} bytes)" for f in _tracked_files()
           if (REPO / f).is_file() and (REPO / f).stat().st_size > MAX_TRACKED_BYTES]
    assert not big, "tracked files over 1 MB:\n" + "\n".join(big)


def test_git_tracks_no_build_artefact():
    """No wheels, archives, compiled modules or build folders are committed."""
    bad = [f for f in _tracked_files() if f.lower().endswith(BUILD_SUFFIXES)
           or f.split("/")[0] in {"build", "dist"} or "__pycache__" in f.split("/") or ".egg-info" in f]
    assert not bad, "build artefacts tracked by git:\n" + "\n".join(bad)
