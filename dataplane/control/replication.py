"""The packet replication engine's control-plane API of a switch: multicast groups and nodes
(BMv2's PRE: nodes are created, then associated with groups) and clone/mirror sessions
(v1model's clone sessions, PNA's mirror sessions)."""
from __future__ import annotations

from typing import Any, Iterable

from dataplane.control.config_errors import ControlPlaneError


class ReplicationApi:
    """Mixed into ``Switch``: needs ``dp``, the device whose ``multicast_groups`` and
    ``clone_sessions`` the calls edit."""

    dp: Any

    def mc_group_create(self, group: int, replicas: Iterable[tuple[int, int]] = ()) -> None:
        """Create multicast group ``group`` with (egress port, rid) replicas."""
        if not 0 < group < (1 << 16):
            raise ControlPlaneError(f"multicast group {group} is out of range 1..65535")
        if group in self.dp.multicast_groups and not replicas:
            raise ControlPlaneError(f"multicast group {group} already exists")
        nodes: dict[int, list[int]] = {}
        for port, rid in replicas:
            nodes.setdefault(rid, []).append(port)
        self.dp.multicast_groups[group] = list(nodes.items())

    def mc_node_add(self, group: int, rid: int, ports: Iterable[int]) -> None:
        self.dp.multicast_groups.setdefault(group, []).append((rid, list(ports)))

    # BMv2's PRE keeps nodes apart from groups: create a node, then associate it. A group's
    # replica list holds the node's own port list, so mc_node_update shows in every group.
    def _nodes(self) -> dict[int, dict[str, Any]]:
        return self.__dict__.setdefault("_mc_nodes", {})

    def _node(self, handle: int) -> dict[str, Any]:
        node = self._nodes().get(handle)
        if node is None:
            raise ControlPlaneError(f"multicast node handle {handle} does not exist")
        return node

    def _ports(self, ports: Iterable[int], what: str) -> list[int]:
        limit = self.dp.port_limit
        out = [int(p) for p in ports]
        bad = [p for p in out if not 0 <= p < limit]
        if bad:
            raise ControlPlaneError(f"{what}: port {bad[0]} is out of range (0..{limit - 1})")
        return out

    def mc_node_create(self, rid: int, ports: Iterable[int]) -> int:
        """Create a replication node (rid, ports); returns its handle (lowest free, as BMv2 assigns)."""
        if not 0 <= rid < (1 << 16):
            raise ControlPlaneError(f"multicast node: rid {rid} is out of range 0..65535")
        nodes = self._nodes()
        handle = next(i for i in range(len(nodes) + 1) if i not in nodes)
        nodes[handle] = {"rid": rid, "ports": self._ports(ports, f"multicast node {handle}"), "group": None}
        return handle

    def mc_node_update(self, handle: int, ports: Iterable[int]) -> None:
        """Replace a node's ports; groups it belongs to see the change."""
        node = self._node(handle)
        node["ports"][:] = self._ports(ports, f"multicast node {handle}")

    def mc_node_associate(self, group: int, handle: int) -> None:
        node = self._node(handle)
        if group not in self.dp.multicast_groups:
            raise ControlPlaneError(f"multicast group {group} does not exist (create it first)")
        if node["group"] is not None:
            raise ControlPlaneError(f"multicast node {handle} is already associated with group {node['group']}")
        node["group"] = group
        self.dp.multicast_groups[group].append((node["rid"], node["ports"]))

    def mc_node_dissociate(self, group: int, handle: int) -> None:
        node = self._node(handle)
        if node["group"] != group or group not in self.dp.multicast_groups:
            raise ControlPlaneError(f"multicast node {handle} is not associated with group {group}")
        replicas = self.dp.multicast_groups[group]
        replicas[:] = [r for r in replicas if r[1] is not node["ports"]]
        node["group"] = None

    def mc_node_destroy(self, handle: int) -> None:
        node = self._node(handle)
        if node["group"] is not None and node["group"] in self.dp.multicast_groups:
            self.mc_node_dissociate(node["group"], handle)
        del self._nodes()[handle]

    def mc_group_destroy(self, group: int) -> None:
        if self.dp.multicast_groups.pop(group, None) is None:
            raise ControlPlaneError(f"multicast group {group} does not exist")
        for node in self._nodes().values():
            if node["group"] == group:
                node["group"] = None

    def _check_session(self, session: int) -> None:
        if not 0 <= session < (1 << 15):
            raise ControlPlaneError(f"clone session {session} is out of range 0..32767")

    def clone_session_add(self, session: int, port: int, packet_length: int | None = None, *,
                          packet_contents: str | None = None) -> None:
        """Clones of ``session`` leave on ``port`` (truncated to ``packet_length`` bytes if given).

        For a PNA program this configures the mirror session that ``mirror_packet`` names;
        ``packet_contents`` is the spec's session property: ``"POST_MODIFY"`` (the default,
        the packet after the main control) or ``"PRE_MODIFY"`` (the packet as received).
        PNA reserves session 0.
        """
        self._check_session(session)
        if not 0 <= port < self.dp.port_limit:
            raise ControlPlaneError(f"clone session {session}: port {port} is out of range")
        config: dict[str, Any] = {"port": port, "packet_length": packet_length}
        if self.dp.architecture == "pna":
            if session == 0:
                raise ControlPlaneError("mirror session 0 is reserved by PNA (PNA_MIRROR_SESSION_TO_CPU); "
                                        "use sessions 1 and up")
            if packet_contents not in (None, "PRE_MODIFY", "POST_MODIFY"):
                raise ControlPlaneError(f"mirror session {session}: packet_contents must be PRE_MODIFY or "
                                        f"POST_MODIFY, not {packet_contents!r}")
            config["packet_contents"] = packet_contents or "POST_MODIFY"
        elif packet_contents is not None:
            raise ControlPlaneError("packet_contents is a PNA mirror session property; v1model clones "
                                    "take the packet the clone type gives")
        self.dp.clone_sessions[session] = config

    def mirroring_add(self, session: int, port: int, packet_length: int | None = None, *,
                      packet_contents: str | None = None) -> None:
        """``mirroring_add SESSION PORT`` (BMv2's CLI name): the same as ``clone_session_add``."""
        self.clone_session_add(session, port, packet_length, packet_contents=packet_contents)

    def clone_session_add_mc(self, session: int, group: int) -> None:
        """Clones of ``session`` are replicated to multicast group ``group`` (``mirroring_add_mc``)."""
        self._check_session(session)
        if self.dp.architecture == "pna":
            raise ControlPlaneError(f"mirror session {session}: PNA has no multicast groups; "
                                    f"give the session a port (mirroring_add)")
        if not 0 < group < (1 << 16):
            raise ControlPlaneError(f"clone session {session}: multicast group {group} is out of range 1..65535")
        self.dp.clone_sessions[session] = {"group": group, "packet_length": None}

    def clone_session_delete(self, session: int) -> None:
        if self.dp.clone_sessions.pop(session, None) is None:
            raise ControlPlaneError(f"clone session {session} does not exist")
