"""What forwards packets: ports with their egress queues and serializers, full-duplex links,
the node base class, P4 switches (v1model) and DPUs (PNA) in simulated time, PFC pause
frames and accounting, the byte-depth queue register, and Python controllers that pay
simulated time for their writes. Imports ``net.core`` and ``net.topology``; programs come in
as ``control.Switch`` objects."""
