"""Testing P4 programs: p4c's STF files (``stf_lexer``, ``stf`` the commands, ``stf_keys`` and
``stf_expect`` the BMv2 driver's rules, ``stf_ebpf`` the eBPF drivers' names, ``stf_runner``
running them), the pytest plugin that collects ``NAME.stf`` and ``NAME.ptest.yaml`` files
(``pytest_plugin``, ``packet_test``), and helpers for this project's own tests
(``skeleton``, ``diagnostics``, ``processes``, ``forks`` (commands in forks of one process that
has imported the package), ``roundtrip``, the printer's round trip, and
``rdma_pair``, two hosts with a queue pair each for the transport's tests).
Replaying a capture through one switch (``dataplane run-packet``) is ``dataplane.replay``'s.
"""
