"""Load balancing on generated fabrics: which program a switch runs and how it is set up
(``schemes``), its routes with links failed (``routes``), and the traffic that measures it
(``workloads``: permutations and all-to-all of long flows over the RDMA transport, with their
completion times and counters) and the figures (``metrics``: goodput against the bisection,
completion times, reordering, uplink utilisation).

The schemes are the built-in programs ``programs/ecmp.p4``, ``flowlet.p4``, ``spray.p4`` and
``adaptive.p4``; ``dataplane scenario loadbalance`` compares them (docs/loadbalance.md).
"""
