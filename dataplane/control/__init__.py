"""The control plane of one switch: ``switch.Switch`` (tables, registers, counters, meters,
multicast, clones, digests, value sets), the values and keys it takes (``values``, ``keys``,
``match_keys``, ``naming``), its errors (``config_errors``), the files that drive it
(the tutorials' runtime JSON, ``simple_switch_CLI`` command files: ``formats``, ``loader``,
``runtime_json``, ``cli_parser``, ``ops``, ``bulk_load``), and the servers in front of it:
``live`` (a switch in real time), ``p4runtime/`` (a P4Runtime v1 server), ``p4info/``
(p4c's P4Info), ``device_config`` and ``ptf_socket`` (PTF's nn platform).
"""
