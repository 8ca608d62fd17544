"""dataplane: a programmable data-plane emulator for P4_16 programs."""

__version__ = "0.1.0"
