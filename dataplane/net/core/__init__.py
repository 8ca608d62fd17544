"""Simulated time and quantities: the event core (``Simulator``: an integer nanosecond clock,
a heap of callbacks, a seeded RNG, its errors), the parsing of rates, times and sizes, and the
class options of the compiled build (``mypyc_attr``, ``dataplane.compiled``). Nothing here
knows about packets; it imports nothing else of ``dataplane.net``."""
