"""Failure schedules for ``dataplane run --events FILE``.

A YAML list of events::

    - {at: 1ms, link: ["s1:p3", "s2:p1"], state: down}
    - {at: 3ms, link: [s1, s2], state: up}
    - {at: 2ms, node: s3, state: down}
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from dataplane.control.config_errors import ConfigError, read_text_file
from dataplane.errors import DataplaneError
from dataplane.net.core.units import parse_time
from dataplane.net.topology.reader import load_yaml_text


def load_events(net: Any, path: Path) -> int:
    """Schedule the events in ``path`` on ``net``; return how many."""
    text = read_text_file(path, "events file")
    items = load_yaml_text(text, str(path), "cannot read events file")
    if not isinstance(items, list):
        raise ConfigError("an events file is a list of events", str(path), 1)
    for i, ev in enumerate(items, 1):
        line = getattr(ev, "line", 0)
        try:
            at = parse_time(ev["at"])
            state = str(ev.get("state", "down")).lower()
            if state not in ("up", "down"):
                raise ConfigError(f"event {i}: state must be 'up' or 'down', not {state!r}", str(path), line)
            if "link" in ev:
                a, b = ev["link"]
                net.set_link(str(a), str(b), state == "up", at)
            elif "node" in ev:
                net.set_node(str(ev["node"]), state == "up", at)
            else:
                raise ConfigError(f"event {i} needs 'link' or 'node'", str(path), line)
        except ConfigError:
            raise
        except (KeyError, TypeError, ValueError) as err:
            raise ConfigError(f"event {i}: missing or bad field ({err})", str(path), line) from None
        except DataplaneError as err:
            raise ConfigError(f"event {i}: {err}", str(path), line) from None
    return len(items)
