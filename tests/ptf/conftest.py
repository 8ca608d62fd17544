"""The PTF suites under tests/ptf/<program>/ are PTF test modules (they import PTF's runtime,
which only the ``ptf`` command sets up); pytest runs them through ``ptf`` in test_ptf_suites.py
and must not collect them itself."""
collect_ignore_glob = ["*/*.py"]   # the suites and lib/
