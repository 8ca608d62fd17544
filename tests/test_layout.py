"""The shape of the package and the repository: no import circles, the package in its layers
(and lang/, engine/, cli/ and net/ in theirs), modules in the folder of their job, no binaries
or build output tracked by git."""
from __future__ import annotations

import ast
import subprocess
from functools import lru_cache
from pathlib import Path

import pytest

import dataplane

pytestmark = pytest.mark.no_pypy  # interpreter-independent and slow under PyPy

PACKAGE = Path(dataplane.__file__).parent
REPO = Path(__file__).resolve().parents[1]

# Each subpackage of dataplane.net may import those listed before it (and itself);
# ``capture`` reads objects by their attributes and needs none of them.
NET_LAYERS = ["core", "topology", "devices", "hosts", "netns", "telemetry", "apps", "rdma", "collectives", "loadbalance",
              "training", "fabric", "parallel"]
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


@lru_cache(maxsize=1)   # every module parsed once for the whole file (5 s a parse of them all)
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


# The package's layers, first to last: a module imports modules of its own layer and of the
# layers before it, never of one after. A layer lists names under ``dataplane``; a module is in
# the layer of the longest name it is or starts with. ``dataplane/__init__.py``, the public API
# that names every layer's exports, is in none.
LAYERS = [
    ["errors", "records", "diagnostics", "progress", "resources", "cache_files", "gc_pause", "natural_order",
     "compiled", "pypy_jit"],
    ["ir"], ["lang"], ["engine"], ["arch"], ["control"], ["pcap"], ["replay"], ["net"], ["report"], ["testing"],
    ["cli.options", "cli.errors"],   # the commands' option types and error display: scenarios declare theirs with them
    ["scenarios"],
    ["cli", "__main__"],
]
# Inside lang/, the folders in the order of the front end's passes, helpers first.
LANG_LAYERS = [
    ["__init__", "limits", "bounded", "literals", "consteval", "scope"],
    ["preprocess"], ["build", "postlex"], ["parser"], ["check"], ["inline", "cp_names", "lint"],
    ["compile_result", "frontend", "compile_cache"],
]
# Inside engine/: what generated code runs on, then the generator, the module it makes, the batch engine.
ENGINE_LAYERS = [
    ["__init__", "runtime", "context", "structgen", "source_map", "code_cache", "hashes", "trace", "table_errors",
     "match_structures", "tables", "table_runtime", "externs", "extern_functions", "psa_externs", "pna_externs",
     "ebpf_externs", "struct_register", "instances"],
    ["codegen"], ["backend"], ["batch", "decision"],
]
# Inside cli/: parameter types and error display, what commands share, the commands, the group.
CLI_LAYERS = [
    ["options", "errors", "pypy_gc"], ["programs", "grpc_options", "emit", "telemetry"],
    ["compile", "packet", "network", "topo", "serve", "scenario", "collective", "netns", "report"],
    ["__init__"],
]


def _layer(name: str, package: str, layers: list[list[str]]) -> int | None:
    """The index of the layer ``name`` (a module of ``package``, or the package itself as
    ``__init__``) is in, by the longest entry it is or starts with; None if it is in none."""
    rel = "__init__" if name == package else name.removeprefix(package + ".")
    best = None
    for i, layer in enumerate(layers):
        for entry in layer:
            if (rel == entry or rel.startswith(entry + ".")) and (best is None or len(entry) > len(best[1])):
                best = (i, entry)
    return None if best is None else best[0]


def _upward_imports(package: str, layers: list[list[str]]) -> list[str]:
    """Every import of a module of ``package`` into a later layer, and every module in no layer."""
    wrong = []
    for name, deps in _graph().items():
        if not name.startswith(package + ".") and name != package or name == "dataplane":
            continue
        mine = _layer(name, package, layers)
        if mine is None:
            wrong.append(f"{name} is in no layer: add it to the list where it belongs")
            continue
        for dep in deps:
            if dep.startswith(package + ".") or dep == package:
                theirs = _layer(dep, package, layers)
                if theirs is not None and theirs > mine:
                    wrong.append(f"{name} (layer {mine}) imports {dep} (layer {theirs})")
    return sorted(wrong)


def test_layer_lists_name_each_module_once():
    """No name is in two layers (a module would be in both)."""
    for layers in (LAYERS, LANG_LAYERS, ENGINE_LAYERS, CLI_LAYERS):
        names = [entry for layer in layers for entry in layer]
        assert len(names) == len(set(names)), names


def test_package_layers_import_only_layers_before_them():
    """errors and the other shared modules < ir < lang < engine < arch < control < pcap < replay
    < net < report < testing < cli's options and errors < scenarios < cli: nothing imports a
    later layer, and every module is in one."""
    assert _upward_imports("dataplane", LAYERS) == []


def test_lang_folders_import_only_passes_before_them():
    """lang/: helpers < preprocess/ < build/ and postlex < parser < check/ < inline/, cp_names
    and lint < the front end (frontend, compile_result, compile_cache)."""
    assert _upward_imports("dataplane.lang", LANG_LAYERS) == []


def test_engine_folders_in_their_layers():
    """engine/: what generated code runs on < codegen/ < backend < batch/; codegen/ knows nothing
    of the batch engine, and nothing below the backend imports the generator."""
    assert _upward_imports("dataplane.engine", ENGINE_LAYERS) == []


def test_cli_commands_import_only_what_they_share():
    """cli/: options, errors and pypy_gc < programs, grpc_options, emit < the commands < the group
    (``cli/__init__.py``), which names the commands by string (``_LAZY``) and imports none:
    no command imports the group."""
    assert _upward_imports("dataplane.cli", CLI_LAYERS) == []


def test_no_cli_module_at_the_package_top():
    """The command lives in cli/, a module per command group: no ``cli_*.py`` beside it."""
    assert sorted(p.name for p in PACKAGE.glob("cli*.py")) == []
    assert (PACKAGE / "cli" / "__init__.py").is_file()


def test_no_module_repeats_its_folder_s_name():
    """In lang/ and engine/, a folder's modules do not carry its name (check/access.py, not
    check/check_access.py), and no loose module carries the name of a folder beside it
    (a ``codegen_*.py`` in engine/ belongs in codegen/)."""
    wrong = []
    for root in (PACKAGE / "lang", PACKAGE / "engine"):
        folders = [root, *(p for p in root.rglob("*") if (p / "__init__.py").is_file())]
        for folder in folders:
            subfolders = {p.name for p in folder.iterdir() if (p / "__init__.py").is_file()}
            for module in folder.glob("*.py"):
                stem = module.stem
                if stem == folder.name or stem.startswith(folder.name + "_"):
                    wrong.append(str(module.relative_to(PACKAGE)))
                wrong += [f"{module.relative_to(PACKAGE)} (belongs in {sub}/)" for sub in subfolders
                          if stem == sub or stem.startswith(sub + "_")]
    assert sorted(wrong) == []


def test_testing_holds_no_replay_code():
    """Replaying captures through a switch is ``dataplane.replay``'s (run-packet, its jobs):
    no module of testing/ reads or writes captures or drives the replay."""
    wrong = [f"{name} imports {dep}" for name, deps in _graph().items() if name.startswith("dataplane.testing")
             for dep in deps if dep.startswith(("dataplane.pcap", "dataplane.replay"))]
    assert wrong == []
    assert {p.stem for p in (PACKAGE / "replay").glob("*.py")} >= {"run", "jobs", "step"}


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
