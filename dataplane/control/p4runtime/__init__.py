"""A P4Runtime v1 server for the emulator (``dataplane serve``).

One module per job: ``server`` (the gRPC service, start/stop), ``arbitration`` (primary and
backup controllers), ``pipeline`` (Set/GetForwardingPipelineConfig and the device config),
``p4info_index`` (ids to names), ``codec`` (canonical bytestrings), ``tables``, ``profiles``,
``externs``, ``pre`` (multicast and clone sessions), ``write`` (batches and atomicity),
``read``, ``packet_io``, ``digests`` and ``status`` (gRPC statuses with ``p4.v1.Error`` details).
"""
