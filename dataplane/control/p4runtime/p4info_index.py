"""The P4Info a controller pushed, indexed by id, and each id's object in the loaded switch."""
from __future__ import annotations

from typing import Any

from p4.config.v1 import p4info_pb2

from dataplane.control.p4runtime.status import not_found

# P4Info's repeated fields that hold entities with a ``preamble``, by the name this module uses.
KINDS = ("tables", "actions", "action_profiles", "counters", "direct_counters", "meters",
         "direct_meters", "controller_packet_metadata", "value_sets", "registers", "digests")


class P4InfoIndex:
    """``index.tables[id]`` is the P4Info ``Table``, and so on for every kind in ``KINDS``."""

    def __init__(self, p4info: p4info_pb2.P4Info):
        self.p4info = p4info
        self.by_kind: dict[str, dict[int, Any]] = {}
        self.names: dict[str, dict[str, int]] = {}
        for kind in KINDS:
            items = getattr(p4info, kind)
            self.by_kind[kind] = {o.preamble.id: o for o in items}
            self.names[kind] = {o.preamble.name: o.preamble.id for o in items}
        # controller_packet_metadata by its name ("packet_in", "packet_out")
        self.packet_metadata = {o.preamble.name: o for o in p4info.controller_packet_metadata}

    def get(self, kind: str, ident: int, what: str | None = None):
        """The P4Info object of ``kind`` with id ``ident``; NOT_FOUND if there is none."""
        obj = self.by_kind[kind].get(ident)
        if obj is None:
            raise not_found(f"{what or kind[:-1].replace('_', ' ')} id {ident} is not in the P4Info")
        return obj

    def ids(self, kind: str) -> list[int]:
        return list(self.by_kind[kind])

    def name(self, kind: str, ident: int) -> str:
        return self.get(kind, ident).preamble.name

    def id_of(self, kind: str, name: str) -> int | None:
        return self.names[kind].get(name)
