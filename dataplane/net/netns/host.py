"""A host that is a Linux network namespace: the emulator's end of its TAP device.

Frames the namespace's kernel sends on ``eth0`` are read by the real-time run
(``dataplane.net.netns.realtime``) and handed to ``send`` at the simulated time that matches
the wall clock, so they enter port 0's queue and cross the emulated links (bandwidth,
latency, loss, queues) like a simulated host's. Frames the network delivers to port 0 are
written to the TAP device at once: the namespace's kernel receives them.
"""
from __future__ import annotations

import os

from dataplane.net.core.sim import Simulator
from dataplane.net.devices.link import Port
from dataplane.net.devices.node import Node
from dataplane.net.hosts.host_stats import HostStats
from dataplane.net.topology.spec import HostSpec

ETH_MIN_FRAME = 60      # without the FCS: what a NIC pads short frames to


class NetnsHost(Node):
    """A namespace host (``HostSpec.netns``); ``fd`` is its TAP device once the run made it."""

    kind = "host"

    def __init__(self, sim: Simulator, spec: HostSpec):
        super().__init__(sim, spec.name)
        self.spec = spec
        self.mac, self.ip, self.prefix_len, self.gateway = spec.mac, spec.ip, spec.prefix_len, spec.gateway
        self.netns: str | None = None
        self.fd: int | None = None
        # The namespace's kernel counts its own packets (ip -s link); these are the emulator's
        # side, read by the summary and the report as a simulated host's: sent/tx = from the
        # namespace into the network, received/rx = from the network into the namespace.
        self.stats = HostStats()
        self.dropped_tap = 0        # the namespace's interface refused a frame (down, or its queue full)
        self.dropped_queue = 0      # port 0's queue was full (the link could not take it)

    def send(self, data: bytes) -> None:
        """A frame from the namespace: into port 0's queue now (padded as a NIC pads it)."""
        if len(data) < ETH_MIN_FRAME:
            data = data + bytes(ETH_MIN_FRAME - len(data))
        st = self.stats
        st.sent += 1
        st.tx_frames += 1
        st.tx_bytes += len(data)
        if not self.transmit(0, data):
            self.dropped_queue += 1

    def receive(self, port: Port, data: bytes) -> None:
        """A frame from the network: to the namespace's kernel."""
        if self.fd is None or not self.up:
            return
        try:
            os.write(self.fd, data)
            st = self.stats
            st.received += 1
            st.rx_frames += 1
            st.rx_bytes += len(data)
        except OSError:
            self.dropped_tap += 1

    def summary(self) -> dict[str, int]:
        return {"to_network": self.stats.tx_frames, "from_network": self.stats.rx_frames,
                "dropped_tap": self.dropped_tap, "dropped_queue": self.dropped_queue}
