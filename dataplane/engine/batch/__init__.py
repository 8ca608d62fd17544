"""The batch engine: the same IR as the per-packet engine, run over numpy batches of packets.

A batch is a 2-D ``uint8`` array (one row a packet, padded to the widest) with the packets'
lengths and ingress ports (``layout``). Every header field, metadata field and local is a
column, one value per packet; control flow is a mask of the packets it applies to. Modules
by job: ``layout`` (the batch), ``values`` (columns of P4 types), ``exprs`` and ``stmts``
(expressions as column arithmetic, statements as masked assignments), ``parser`` (the
parser's state graph as a mask per state), ``tables`` (vectorised exact, LPM and
priority lookups with the per-packet engine's tie-breaks), ``calls`` (extern calls:
checksums, counters, drops), ``deparser`` (columns packed back to bytes), ``v1model``
(the architecture's blocks and packet fates), ``compiler`` (what is accepted, and the
located reason for what is refused: ``BatchUnsupported``), ``heap`` (freed memory kept
for the next batch).

Equality with the per-packet engine is the contract: a program the batch engine accepts
gives the same outputs, drops and counters, byte for byte.
"""
from dataplane.engine.batch.refuse import BatchUnsupported

__all__ = ["BatchUnsupported"]
