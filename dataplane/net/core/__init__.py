"""Simulated time and quantities: the event core (``Simulator``: an integer nanosecond clock,
a heap of callbacks, a seeded RNG) and the parsing of rates, times and sizes. Nothing here
knows about packets; it imports nothing else of ``dataplane.net``."""
