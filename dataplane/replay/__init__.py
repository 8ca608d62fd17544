"""Replay: packets from hex or a capture through one switch, what comes out shown or written
to a pcap per egress port (``dataplane run-packet``).

``run`` is the command's body (``run_packets``): the engine chosen (batch or per packet), a
capture streamed in constant memory, the outputs with their input's timestamps. A capture
replayed to pcaps runs on several processes when the program allows it, the files byte for
byte those of one: ``jobs`` forks the workers, hands out the batches and writes the files in
order (the batch engine's step, ``BatchStep``); ``step`` is the per-packet engine's step and
knows what of a program may run apart.
"""
