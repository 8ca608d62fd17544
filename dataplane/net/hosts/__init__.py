"""The host stack: a node with one port and a small IPv4 stack (ARP, IPv4, UDP, ICMP echo),
its counters, and the hand-written builders and parsers of the frames it speaks. Imports
``net.core``, ``net.topology`` and ``net.devices``."""
