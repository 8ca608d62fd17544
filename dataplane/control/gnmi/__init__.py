"""A gNMI server for the emulator's switches (``dataplane run --serve``): streaming telemetry of
a switch's counters in simulated time.

One module per job: ``paths`` (gNMI paths against the schema a source serves: wildcards,
and the spec's error codes for paths that are malformed, not implemented or not there),
``service`` (Capabilities, Get, Set, Subscribe ONCE/POLL/STREAM with SAMPLE, ON_CHANGE and
TARGET_DEFINED) and ``server`` (the gRPC server, its limits and TLS). What is served comes from
a source (``dataplane.net.telemetry.counters.CounterSource``); the protobuf messages are
pygnmi's compiled gNMI 0.8 protos (``pygnmi.spec.v080``), CPython only as grpcio is.
"""
