"""P4Info (p4.config.v1.P4Info) for a compiled program, with p4c's ids, names and layout.

``build_p4info(program)`` builds it; ``write_p4info`` / ``read_p4info`` store it as text
(``.txt``, ``.txtpb``, ``.pb.txt``), binary (``.bin``, ``.pb``) or JSON (``.json``).
Needs the ``p4runtime`` package (CPython only).
"""
from dataplane.control.p4info.build import build_p4info
from dataplane.control.p4info.ids import P4InfoError
from dataplane.control.p4info.write import read_p4info, write_p4info

__all__ = ["build_p4info", "write_p4info", "read_p4info", "P4InfoError"]
