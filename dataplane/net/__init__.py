"""The virtual fabric: simulated time, devices, hosts and their apps, topology input, output.

Subpackages, each importing only those listed before it (``tests/test_layout.py`` holds
them to it):

- ``core``: the discrete-event simulator and the units engineers write (``100Gbps``, ``1us``).
- ``topology``: what a network is, as data (``TopologySpec``) and as files (YAML, the P4
  tutorials' ``topology.json``, generated fabrics, failure schedules).
- ``devices``: ports, links and their queues, P4 switches, DPUs, PFC, controllers.
- ``hosts``: the host's IPv4 stack (ARP, UDP, ICMP echo) and the frames it speaks.
- ``apps``: what runs on hosts (ping, UDP flows, bulk transfer, DCQCN, allreduce, VXLAN)
  and traffic files naming them.
- ``capture``: what a run leaves behind (pcaps, metrics, plots); it needs nothing else here.
- ``fabric``: ``Network``, which builds a running network from a ``TopologySpec``.

Outside the package, ``net`` reaches programs through ``arch`` and ``control`` (a ``Switch``),
never into ``engine`` or ``ir`` directly.
"""
