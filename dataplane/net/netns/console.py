"""``dataplane console``: Mininet's CLI habits on a running real-time run.

    h1 ping -c 3 h2      run a command on a host; host names in it become their addresses
    h2 iperf3 -s &       the same in the background (stopped with the run)
    jobs                 the background commands, running or ended
    log h2               h2's background output not shown yet
    pingall              every namespace host pings every other, one at a time
    nodes / links / dump the run's hosts and switches, its links, its hosts' addresses
    exit                 leave the console (the run goes on)

A foreground command runs through ``ip netns exec`` on a pseudo-terminal (``terminal``): its
output shows as it comes and, when the console reads a terminal, the keyboard is its input
(``h1 python3 calc.py`` prompts and reads), Ctrl-C stops it. Reading a pipe or a file, the
console gives it no input and stops it after ``--timeout`` (60 s by default).

A background command's output goes to a log file per host, ``RUN.logs/HOST.log`` beside the
run's state file (``/run/dataplane``), kept after the run ends. As on a Mininet host, whose
background output comes out with its next command, what it wrote since is shown before the
next foreground command on that host; ``log HOST`` shows it at any time.
"""
from __future__ import annotations

import cmd
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any, TextIO

from dataplane.net.netns.terminal import run_on_pty


class Console(cmd.Cmd):
    prompt = "dataplane> "

    def __init__(self, state: dict[str, Any], stdin: TextIO | None = None, stdout: TextIO | None = None,
                 timeout_s: float = 60.0):
        super().__init__(stdin=stdin, stdout=stdout)
        self.state = state
        self.timeout_s = timeout_s
        self.background: list[tuple[str, str, subprocess.Popen]] = []     # (host, command, process)
        self.logs = Path(state["_path"]).with_suffix(".logs") if state.get("_path") else None
        self._shown: dict[str, int] = {}          # host -> bytes of its log already shown
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
        """Every namespace host pings every other once, one at a time (1 s timeout), as Mininet's pingall."""
        hosts = self.state["hosts"]
        sent = received = 0
        for a in hosts:
            self.stdout.write(f"{a} ->")
            self.stdout.flush()
            for b in hosts:
                if b == a:
                    continue
                p = subprocess.Popen(self._in(a, ["ping", "-c", "1", "-W", "1", hosts[b]["ip"]]),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                ok = _wait(p, 5) == 0
                sent += 1
                received += ok
                self.stdout.write(f" {b if ok else 'X'}")
                self.stdout.flush()
            self.say("")
        dropped = 100 * (sent - received) // sent if sent else 0
        self.say(f"*** Results: {dropped}% dropped ({received}/{sent} received)")

    def do_jobs(self, _: str) -> None:
        """The background commands: number, state, host and command."""
        for i, (host, command, p) in enumerate(self.background, 1):
            status = "running" if p.poll() is None else f"exit {p.returncode}"
            self.say(f"[{i}] {status:<8} {host}: {command}")

    def do_log(self, line: str) -> None:
        """log HOST: what HOST's background commands wrote since it was last shown (and where it all is)."""
        host = line.strip()
        if host not in self.state["hosts"]:
            self.say(f"*** log: give a namespace host ({', '.join(self.state['hosts'])})")
            return
        if not self._show_log(host):
            where = f" ({self._log_path(host)})" if self.logs is not None else ""
            self.say(f"*** {host}: no new background output{where}")

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
            self._background(host, " ".join(rest), args)
            return
        self._show_log(host)
        keyboard = _fileno(self.stdin) if self.use_rawinput else None
        try:
            status = run_on_pty(args, self._write, keyboard=keyboard, timeout_s=self.timeout_s)
        except OSError as err:
            self.say(f"*** {host}: cannot run it: {err}")
            return
        if status is None:
            self.say(f"*** {host}: stopped after {self.timeout_s:g} s")

    def _write(self, text: str) -> None:
        self.stdout.write(text)
        self.stdout.flush()

    def _background(self, host: str, command: str, args: list[str]) -> None:
        """``HOST COMMAND &``: its own session (Ctrl-C in the console leaves it), output to the host's log."""
        if self.logs is None:
            out: Any = subprocess.DEVNULL
            where = "output not kept: the console has no run state file"
        else:
            self.logs.mkdir(parents=True, exist_ok=True)
            path = self._log_path(host)
            out = open(path, "ab")
            where = f"output: {path}"
        try:
            p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                 start_new_session=True)
        except OSError as err:
            self.say(f"*** {host}: cannot run it: {err}")
            return
        finally:
            if out is not subprocess.DEVNULL:
                out.close()
        self.background.append((host, command, p))
        self.say(f"[{len(self.background)}] {p.pid} ({where})")

    def _log_path(self, host: str) -> Path:
        assert self.logs is not None
        return self.logs / f"{host}.log"

    def _show_log(self, host: str) -> bool:
        """Print what ``host``'s background commands wrote since last shown; False if nothing."""
        if self.logs is None:
            return False
        path = self._log_path(host)
        try:
            with open(path, "rb") as f:
                f.seek(self._shown.get(host, 0))
                data = f.read()
        except FileNotFoundError:
            return False
        if not data:
            return False
        self._shown[host] = self._shown.get(host, 0) + len(data)
        self._write(data.decode("utf-8", "replace"))
        if not data.endswith(b"\n"):
            self._write("\n")
        return True

    def _in(self, host: str, args: list[str]) -> list[str]:
        return ["ip", "netns", "exec", self.state["hosts"][host]["netns"], *args]


def _fileno(stream: Any) -> int | None:
    try:
        return stream.fileno()
    except (AttributeError, OSError, ValueError):
        return None


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
