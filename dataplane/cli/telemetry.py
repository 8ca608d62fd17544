"""What ``dataplane run`` needs for telemetry: ``--int HOST`` (INT roles and a collector) and,
with ``--serve``, a gNMI server per switch (``--gnmi-base-port``)."""
from __future__ import annotations

from typing import Any

import click

__all__ = ["format_int_summary", "int_collector_for", "serve_gnmi"]


def int_collector_for(net: Any, host: str) -> Any:
    """``--int HOST``: INT roles on the network's int.p4 switches and a collector on HOST."""
    from dataplane.net.apps.int_collector import IntCollector
    from dataplane.net.telemetry.int_roles import configure_int

    if host not in net.hosts:
        raise click.BadParameter(f"no host {host!r} in the topology (hosts: {', '.join(sorted(net.hosts))})",
                                 param_hint="'--int'")
    try:
        deployment = configure_int(net, host)
    except ValueError as err:
        raise click.BadParameter(str(err), param_hint="'--int'") from None
    return IntCollector(net.host(host), deployment.report_port, node_names=deployment.node_names)


def format_int_summary(data: dict) -> str:
    """The summary's INT lines (``IntCollector.summary``'s data)."""
    from dataplane.net.apps.int_collector import format_summary

    return format_summary(data)


def serve_gnmi(live: Any, host: str, base_port: int, tls: Any) -> list:
    """A gNMI server per switch on ``host``, ports from ``base_port`` (run's ``--gnmi-base-port``)."""
    from dataplane.control.gnmi.server import GnmiServer
    from dataplane.control.p4runtime.address import join_address
    from dataplane.net.devices.live import start_servers
    from dataplane.net.telemetry.counters import CounterSource

    return start_servers(live, lambda i, node: GnmiServer(CounterSource(node.node, live.lock),
                                                          join_address(host, base_port + i), tls=tls))
