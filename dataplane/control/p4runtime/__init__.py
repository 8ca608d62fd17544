"""A P4Runtime v1 server for the emulator (``dataplane serve``).

One module per job: ``server`` (the gRPC service; start/stop; several devices per process),
``arbitration`` (primary and backup controllers per role), ``pipeline`` (Set/Get
ForwardingPipelineConfig; the device config itself is ``dataplane.control.device_config``),
``context`` (the per-pipeline state), ``p4info_index`` (ids to P4Info objects), ``codec``
(canonical bytestrings), ``entities`` (Write/Read dispatch and the atomicity modes),
``tables``, ``profiles``, ``externs``, ``value_sets``, ``pre`` (multicast groups and clone
sessions), ``packet_io``, ``digests``, ``idle`` (idle timeouts) and ``status`` (gRPC statuses
with ``p4.v1.Error`` details). Against hostile clients: ``compiler`` and ``compile_child`` (a
pushed config compiled sandboxed in a child process, bounded), ``streams`` (the stream limit,
bounded outboxes, packet-outs in turn), ``handlers`` (requests parsed in the call),
``address`` (ports checked, a port in use named) and ``tls``.
"""
