"""``dataplane console``: Mininet's CLI habits on a running real-time run.

    h1 ping -c 3 h2      run a command on a host; host names in it become their addresses
    h2 iperf3 -s &       the same in the background (stopped with the run)
    pingall              every namespace host pings every other once
    nodes / links / dump the run's hosts and switches, its links, its hosts' addresses
    exit                 leave the console (the run goes on)

Commands run through ``ip netns exec`` with a timeout when run in the foreground (``--timeout``
of the console, 60 s by default), so a command that never ends cannot hang the console.
"""
from __future__ import annotations

import cmd
import shlex
import subprocess
import sys
from typing import Any, TextIO


class Console(cmd.Cmd):
    prompt = "dataplane> "

    def __init__(self, state: dict[str, Any], stdin: TextIO | None = None, stdout: TextIO | None = None,
                 timeout_s: float = 60.0):
        super().__init__(stdin=stdin, stdout=stdout)
        self.state = state
        self.timeout_s = timeout_s
        self.background: list[subprocess.Popen] = []
        self.use_rawinput = (stdin or sys.stdin).isatty()
        if not self.use_rawinput:
            self.prompt = ""
        self.intro = (f"run {state['name']}: namespace hosts {', '.join(state['hosts'])}; "
                      "type help for the commands, exit to leave")

    # ---- what it prints ----------------------------------------------------------------------------
    def say(self, text: str) -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def emptyline(self) -> bool:
        return False

    def do_EOF(self, _: str) -> bool:
        return True

    def do_exit(self, _: str) -> bool:
        """Leave the console; the run goes on."""
        return True

    do_quit = do_exit

    def do_nodes(self, _: str) -> None:
        """The run's hosts and switches."""
        names = [*self.state["hosts"], *self.state.get("sim_hosts", []), *self.state.get("switches", [])]
        self.say("available nodes are: " + " ".join(names))

    def do_links(self, _: str) -> None:
        """Every link, with its rate, latency and loss."""
        for link in self.state.get("links", []):
            loss = f" loss {link['loss'] * 100:g}%" if link.get("loss") else ""
            self.say(f"{link['a']}<->{link['b']} {format_rate(link['bandwidth_bps'])} "
                     f"{format_time(link['latency_ns'])}{loss}")

    def do_dump(self, _: str) -> None:
        """Every namespace host: interface, address, MAC, namespace."""
        for name, h in self.state["hosts"].items():
            self.say(f"<NetnsHost {name}: {h['iface']}:{h['ip']}/{h['prefix_len']} {h['mac']} netns={h['netns']}>")
        for name in self.state.get("switches", []):
            self.say(f"<P4Switch {name}>")

    do_net = do_links

    def do_pingall(self, _: str) -> None:
        """Every namespace host pings every other once (1 s timeout), as Mininet's pingall."""
        hosts = self.state["hosts"]
        sent = received = 0
        for a in hosts:
            procs = {b: subprocess.Popen(self._in(a, ["ping", "-c", "1", "-W", "1", hosts[b]["ip"]]),
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                     for b in hosts if b != a}
            row = []
            for b, p in procs.items():
                ok = _wait(p, 5) == 0
                sent += 1
                received += ok
                row.append(b if ok else "X")
            self.say(f"{a} -> {' '.join(row)}")
        dropped = 100 * (sent - received) // sent if sent else 0
        self.say(f"*** Results: {dropped}% dropped ({received}/{sent} received)")

    def default(self, line: str) -> None:
        """``HOST COMMAND ...`` (``&`` at the end: in the background)."""
        try:
            words = shlex.split(line)
        except ValueError as err:
            self.say(f"error: {err}")
            return
        if not words:
            return
        host, rest = words[0], words[1:]
        if host not in self.state["hosts"]:
            self.say(f"*** Unknown command: {line} (a host name first, or help)")
            return
        background = bool(rest) and rest[-1] == "&"
        if background:
            rest = rest[:-1]
        if not rest:
            self.say(f"*** {host}: no command")
            return
        ips = {name: h["ip"] for name, h in self.state["hosts"].items()}
        args = self._in(host, [ips.get(w, w) for w in rest])
        if background:
            p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            self.background.append(p)
            self.say(f"[{len(self.background)}] {p.pid}")
            return
        try:
            r = subprocess.run(args, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=self.timeout_s)
        except subprocess.TimeoutExpired as err:
            self.say(f"*** {host}: stopped after {self.timeout_s:g} s")
            out = (err.stdout or b"").decode(errors="replace") if isinstance(err.stdout, bytes) else (err.stdout or "")
            self.stdout.write(out)
            return
        self.stdout.write(r.stdout + r.stderr)
        self.stdout.flush()

    def _in(self, host: str, args: list[str]) -> list[str]:
        return ["ip", "netns", "exec", self.state["hosts"][host]["netns"], *args]


def format_rate(bps: int) -> str:
    for unit, scale in (("Gbps", 10**9), ("Mbps", 10**6), ("Kbps", 10**3)):
        if bps >= scale:
            return f"{bps / scale:g}{unit}"
    return f"{bps}bps"


def format_time(ns: int) -> str:
    for unit, scale in (("s", 10**9), ("ms", 10**6), ("us", 10**3)):
        if ns >= scale:
            return f"{ns / scale:g}{unit}"
    return f"{ns}ns"


def _wait(p: subprocess.Popen, timeout: float) -> int | None:
    try:
        return p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        return None
