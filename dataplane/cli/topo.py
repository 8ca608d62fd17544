"""``dataplane topo``: topologies generated (leaf-spine, fat-tree, dragonfly), YAML plus each
switch's runtime JSON, for ``dataplane run``."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from dataplane.cli.errors import error_message
from dataplane.cli.options import OutputDir, Whole
from dataplane.errors import DataplaneError


# The generators' own bounds (their address plans, 10.x.y.0/24), checked when the command line is read.
@click.group("topo")
def topo_group() -> None:
    """Generate topologies (YAML plus per-switch runtime JSON for programs/ecmp_router.p4)."""


def _write(make, out: Path) -> None:
    """Build the topology with ``make()`` and write it; bad parameters are an error message."""
    try:
        path = make().write(out)
    except (DataplaneError, ValueError) as err:
        click.echo(error_message(err), err=True)
        sys.exit(1)
    click.echo(f"wrote {path}")


@topo_group.command("leaf-spine")
@click.option("--leaves", type=Whole(1, 255), default=4, show_default=True, help="Leaf (top-of-rack) switches.")
@click.option("--spines", type=Whole(1, 255), default=2, show_default=True,
              help="Spine switches; every leaf links to every spine.")
@click.option("--hosts-per-leaf", type=Whole(1, 253), default=4, show_default=True, help="Hosts under each leaf.")
@click.option("--out", type=OutputDir(), default=Path("leaf-spine"), show_default=True,
              help="Directory to write the topology YAML and per-switch runtime JSON into.")
def leaf_spine_cmd(leaves: int, spines: int, hosts_per_leaf: int, out: Path) -> None:
    """A two-tier leaf-spine fabric with ECMP over the spines."""
    from dataplane.net.topology.generators import leaf_spine

    _write(lambda: leaf_spine(leaves, spines, hosts_per_leaf), out)


@topo_group.command("fat-tree")
@click.option("--k", type=Whole(2, 254), default=4, show_default=True, help="Switch radix k (even): k pods.")
@click.option("--out", type=OutputDir(), default=Path("fat-tree"), show_default=True,
              help="Directory to write the topology YAML and per-switch runtime JSON into.")
def fat_tree_cmd(k: int, out: Path) -> None:
    """A k-ary fat tree: k pods, (k/2)^2 cores, k^3/4 hosts."""
    from dataplane.net.topology.generators import fat_tree

    _write(lambda: fat_tree(k), out)


@topo_group.command("dragonfly")
@click.option("--groups", type=Whole(1, 255), default=None, help="Number of groups (default: the most the global links allow).")
@click.option("--routers-per-group", type=Whole(1, 255), default=4, show_default=True, help="Routers in each group.")
@click.option("--hosts-per-router", type=Whole(1, 253), default=2, show_default=True, help="Hosts on each router.")
@click.option("--global-links-per-router", type=Whole(1, 255), default=2, show_default=True,
              help="Links from each router to routers of other groups.")
@click.option("--out", type=OutputDir(), default=Path("dragonfly"), show_default=True,
              help="Directory to write the topology YAML and per-switch runtime JSON into.")
def dragonfly_cmd(groups: int | None, routers_per_group: int, hosts_per_router: int, global_links_per_router: int,
                  out: Path) -> None:
    """A dragonfly: all-to-all routers inside each group, global links between groups."""
    from dataplane.net.topology.generators import dragonfly

    _write(lambda: dragonfly(groups, routers_per_group, hosts_per_router, global_links_per_router), out)
