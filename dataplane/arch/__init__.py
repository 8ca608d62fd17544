"""The architectures, one module each: what a device does with a packet around the program's
blocks (block order, metadata, packet fates), as the reference target runs it.

``v1model`` (BMv2's simple_switch), ``psa`` (BMv2's psa_switch; its program view in
``psa_program``, its metadata layout in ``psa_storage``), ``pna`` (a DPU/NIC), and the eBPF
family: ``ebpf`` (ebpfFilter), ``xdp`` and ``ubpf``. ``device`` holds what they all share.
"""
