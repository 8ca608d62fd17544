"""Applications on hosts: ping, constant-bit-rate UDP with measuring sinks, incast, reliable
bulk transfer, DCQCN senders and receivers, allreduce workers (in-network and ring), the
software VTEP and tenant traffic, and the traffic files that name them. Imports
``net.core``, ``net.topology``, ``net.devices`` and ``net.hosts``."""
