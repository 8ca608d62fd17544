"""Telemetry on the fabric: INT-MD over UDP and telemetry reports as bytes (``int_wire``), INT
roles on the switches of a network that run ``programs/int.p4`` (``int_roles``), and a switch's
counters as OpenConfig leaves for the gNMI server of ``run --serve`` (``counters``). The INT
collector host app is ``dataplane.net.apps.int_collector``; the gNMI server is
``dataplane.control.gnmi``. Imports ``net.core``, ``net.topology``, ``net.devices`` and
``net.hosts``."""
