"""In-band Network Telemetry on the fabric: INT-MD over UDP and telemetry reports as bytes
(``int_wire``) and INT roles on the switches of a network that run ``programs/int.p4``
(``int_roles``). The collector host app is ``dataplane.net.apps.int_collector``. Imports
``net.core``, ``net.topology``, ``net.devices`` and ``net.hosts``."""
