"""Network namespaces of a run: names, privileges, making and configuring them, removing them.

A run named RUN puts host H in the namespace ``dataplane-RUN-H`` (``ip netns`` names, so
``ip netns exec`` and ``ip -n`` reach them too), with one interface ``eth0`` (a TAP device,
``dataplane.net.netns.tap``) carrying the address, MAC, MTU, default route and static ARP
entries the topology gives the host. The prefix marks what a run made: ``dataplane cleanup``
removes only namespaces that carry it.

Every ``ip`` call has a timeout; a failure raises ``NetnsError`` with ip's own message.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

from dataplane.errors import DataplaneError
from dataplane.net.topology.addresses import format_ipv4, format_mac

PREFIX = "dataplane-"
NETNS_DIR = Path("/run/netns")
IFACE = "eth0"
_CAP_NET_ADMIN = 12
_CAP_SYS_ADMIN = 21
_NAME_RE = re.compile(r"[^A-Za-z0-9_.]+")


class NetnsError(DataplaneError):
    """Namespaces could not be made, configured or entered (no privileges, no ``ip``, ...)."""

    code = "netns"


def run_name(text: str) -> str:
    """A run name usable inside namespace names: letters, digits, ``_`` and ``.``."""
    name = _NAME_RE.sub("_", text).strip("_.") or "run"
    return name[:40]


def netns_name(run: str, host: str) -> str:
    return f"{PREFIX}{run}-{_NAME_RE.sub('_', host)}"


def check_privileges() -> None:
    """Raise NetnsError unless this process may make namespaces and TAP devices."""
    if os.geteuid() != 0:
        caps = _effective_capabilities()
        if not (caps >> _CAP_NET_ADMIN & 1 and caps >> _CAP_SYS_ADMIN & 1):
            raise NetnsError("namespace hosts need root, or the CAP_NET_ADMIN and CAP_SYS_ADMIN capabilities "
                             "(to make network namespaces and TAP devices): run it with sudo")
    if shutil.which("ip") is None:
        raise NetnsError("namespace hosts need the 'ip' command (Debian/Ubuntu: apt-get install iproute2)")
    if not os.path.exists("/dev/net/tun"):
        raise NetnsError("namespace hosts need /dev/net/tun (the tun module: modprobe tun)")


def _effective_capabilities() -> int:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("CapEff:"):
                return int(line.split()[1], 16)
    except (OSError, ValueError):
        pass
    return 0


def ip(*args: str, stdin: str | None = None, timeout: float = 10.0, check: bool = True) -> str:
    """Run ``ip ARGS``; its stdout. A failure raises NetnsError with ip's message."""
    try:
        r = subprocess.run(["ip", *args], input=stdin, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise NetnsError(f"ip {' '.join(args)}: {err}") from None
    if check and r.returncode != 0:
        raise NetnsError(f"ip {' '.join(args)}: {r.stderr.strip() or f'exit status {r.returncode}'}")
    return r.stdout


def add(name: str) -> None:
    """Make namespace ``name`` with its loopback up and IPv6 off (no router solicitations or
    duplicate-address probes leaking into the emulated network unasked)."""
    if (NETNS_DIR / name).exists():
        raise NetnsError(f"namespace {name} exists already: another run with this name is up, or an "
                         "earlier one left it (dataplane cleanup removes leftovers)")
    ip("netns", "add", name)
    ip("-n", name, "link", "set", "lo", "up")


def disable_ipv6() -> None:
    """In the namespace this thread is in: no IPv6 on interfaces made from now on."""
    for key in ("all", "default"):
        try:
            Path(f"/proc/sys/net/ipv6/conf/{key}/disable_ipv6").write_text("1")
        except OSError:
            pass      # a kernel without IPv6: nothing to switch off


def configure(name: str, mac: int, address: int, prefix_len: int, mtu: int, gateway: int | None,
              static_arp: dict[int, int]) -> None:
    """Give ``eth0`` in namespace ``name`` the host's MAC, MTU and address, bring it up, and add
    the default route and the static ARP entries (one ``ip -batch`` call)."""
    lines = [f"link set {IFACE} address {format_mac(mac)} mtu {mtu}",
             f"addr add {format_ipv4(address)}/{prefix_len} dev {IFACE}",
             f"link set {IFACE} up"]
    if gateway is not None:
        lines.append(f"route add default via {format_ipv4(gateway)} dev {IFACE}")
    for arp_ip, arp_mac in sorted(static_arp.items()):
        lines.append(f"neigh replace {format_ipv4(arp_ip)} lladdr {format_mac(arp_mac)} dev {IFACE} nud permanent")
    ip("-n", name, "-batch", "-", stdin="\n".join(lines) + "\n")


def pids(name: str) -> list[int]:
    """Processes in namespace ``name``."""
    out = ip("netns", "pids", name, check=False, timeout=5)
    return [int(p) for p in out.split() if p.isdigit()]


def remove(name: str, grace_s: float = 1.0) -> None:
    """Stop the processes in namespace ``name`` (SIGTERM, then SIGKILL after ``grace_s``) and
    delete it. A namespace already gone is no error."""
    if not (NETNS_DIR / name).exists():
        return
    running = pids(name)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in running:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + grace_s
        while running and time.monotonic() < deadline:
            running = [p for p in running if _alive(p)]
            if running:
                time.sleep(0.02)
        if not running:
            break
    ip("netns", "del", name, check=False, timeout=5)


def in_use(name: str) -> bool:
    """Namespace ``name`` still has its ``eth0``: a TAP device some live emulator holds open
    (the kernel removes a TAP device when its last file descriptor closes)."""
    return bool(ip("-n", name, "-o", "link", "show", IFACE, check=False, timeout=5).strip())


def leftovers() -> list[str]:
    """Namespaces with the run prefix that exist now."""
    try:
        return sorted(p.name for p in NETNS_DIR.iterdir() if p.name.startswith(PREFIX))
    except OSError:
        return []


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:   # a zombie is dead for our purpose
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0] != "Z"
    except (OSError, IndexError):
        return False
