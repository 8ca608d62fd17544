"""A real-time run's state file: how ``dataplane exec``, ``console`` and ``cleanup`` find it.

``/run/dataplane/RUN.json`` (``DATAPLANE_STATE_DIR`` overrides the folder) holds the run's
name, its process id, its namespace hosts (namespace, address, MAC), its switches and links.
It is written when the namespaces are up and removed when they are gone. A state file whose
process no longer runs is a leftover: ``cleanup`` removes its namespaces and the file.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from dataplane.net.netns import namespaces
from dataplane.net.netns.namespaces import NetnsError


def state_dir() -> Path:
    return Path(os.environ.get("DATAPLANE_STATE_DIR", "/run/dataplane"))


def state_path(run: str) -> Path:
    return state_dir() / f"{run}.json"


def write_state(path: Path, data: dict[str, Any]) -> None:
    """Write the state atomically (a reader never sees half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    tmp.replace(path)


def read_state(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise NetnsError(f"{path}: no such state file (is the run up?)") from None
    except (OSError, ValueError) as err:
        raise NetnsError(f"{path}: not a run's state file ({err})") from None
    if not isinstance(data, dict) or "hosts" not in data or "pid" not in data:
        raise NetnsError(f"{path}: not a run's state file (no hosts or pid)")
    data["_path"] = str(path)
    return data


def is_live(state: dict[str, Any]) -> bool:
    """The run's process still runs."""
    try:
        os.kill(int(state["pid"]), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def runs() -> list[dict[str, Any]]:
    """Every run with a state file, live or not."""
    out = []
    for path in sorted(state_dir().glob("*.json")):
        try:
            out.append(read_state(path))
        except NetnsError:
            continue
    return out


def find_run(name: str | None = None, state_file: Path | None = None) -> dict[str, Any]:
    """The live run named ``name``, or the one ``state_file`` describes, or the only live run."""
    if state_file is not None:
        state = read_state(state_file)
    elif name is not None:
        state = read_state(state_path(name))
    else:
        live = [s for s in runs() if is_live(s)]
        if not live:
            raise NetnsError("no real-time run with namespace hosts is up "
                             "(start one with: dataplane run TOPOLOGY --realtime --netns)")
        if len(live) > 1:
            raise NetnsError("several runs are up: name one with --run "
                             f"({', '.join(s['name'] for s in live)})")
        state = live[0]
    if not is_live(state):
        raise NetnsError(f"run {state['name']} is not up any more (process {state['pid']} has ended); "
                         "dataplane cleanup removes what it left")
    return state


def host_netns(state: dict[str, Any], host: str) -> str:
    """The namespace of ``host`` in the run, or a NetnsError naming the hosts there are."""
    hosts = state["hosts"]
    if host not in hosts:
        known = ", ".join(hosts) or "none"
        what = "a switch, not a namespace host" if host in state.get("switches", []) else "not a namespace host"
        raise NetnsError(f"{host} is {what} of run {state['name']} (namespace hosts: {known})")
    return hosts[host]["netns"]


def remove_run(state: dict[str, Any]) -> list[str]:
    """Remove the run's namespaces (and the processes in them) and its state file; returns the
    namespaces removed."""
    gone = []
    for host in state["hosts"].values():
        name = host["netns"]
        if (namespaces.NETNS_DIR / name).exists():
            namespaces.remove(name)
            gone.append(name)
    Path(state["_path"]).unlink(missing_ok=True)
    return gone
