"""Real hosts on the emulated fabric: Linux network namespaces joined to the emulator by TAP
devices, the real-time run that carries their frames, and the run's state on disk (for
``dataplane exec``, ``console`` and ``cleanup``)."""
