"""TAP devices, made inside a network namespace and read and written by the emulator.

Why TAP and not a veth pair with a raw socket on one end: a TAP device is one interface, and
it is made directly inside the host's namespace (this thread enters the namespace for the
``open``/``ioctl`` and comes back), so nothing ever appears in the machine's own namespace.
The device lives as long as the emulator holds its file descriptor: if the emulator dies,
even by SIGKILL, the kernel removes the interface. And without ``IFF_VNET_HDR`` and
``TUNSETOFFLOAD`` the kernel hands the emulator finished frames (checksums filled in, no
TSO/GRO super-frames larger than the MTU), which a raw socket on a veth only does after
``ethtool -K ... tx off gso off`` on both ends (the P4 tutorials' Mininet hosts need it).
"""
from __future__ import annotations

import ctypes
import fcntl
import os
import struct
from contextlib import contextmanager
from typing import Iterator

TUNSETIFF = 0x400454CA
IFF_TAP = 0x0002
IFF_NO_PI = 0x1000
CLONE_NEWNET = 0x40000000
MAX_FRAME = 65_536

_libc = None


def _setns(fd: int) -> None:
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"setns: {os.strerror(err)}")


@contextmanager
def inside(netns_path: str) -> Iterator[None]:
    """Run the block with this thread in the network namespace at ``netns_path``
    (``/run/netns/NAME``), then return to the namespace it was in."""
    home = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    try:
        target = os.open(netns_path, os.O_RDONLY)
        try:
            _setns(target)
        finally:
            os.close(target)
        try:
            yield
        finally:
            _setns(home)
    finally:
        os.close(home)


def open_tap(name: str) -> int:
    """Make TAP device ``name`` in the current network namespace; returns its non-blocking
    file descriptor (one read: one frame; one write: one frame)."""
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    try:
        fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH22x", name.encode(), IFF_TAP | IFF_NO_PI))
    except OSError:
        os.close(fd)
        raise
    return fd


def read_frames(fd: int, limit: int = 64) -> list[bytes]:
    """Up to ``limit`` frames waiting on ``fd`` (none: an empty list)."""
    frames = []
    read = os.read
    for _ in range(limit):
        try:
            frames.append(read(fd, MAX_FRAME))
        except BlockingIOError:
            break
        except OSError:      # the interface went away or down: nothing to read
            break
    return frames
