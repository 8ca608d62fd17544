"""The decision cache: a switch remembers what its program did to a packet and applies it to the
next packet that agrees with it on every bit the program reads (Open vSwitch's megaflows).

``reads`` finds, from a program's IR, which header fields its pipeline reads, which it only
carries through, and whether anything on the path keeps state; ``cache`` holds the decisions and
applies them to packet bytes. The architecture wires the two to its pipeline
(``dataplane.arch.v1model_decisions``).
"""
