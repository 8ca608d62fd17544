"""PTF's ``nn`` platform served by a live switch: packets to and from PTF over an NNG socket.

PTF run with ``--platform nn --device-socket 0-{0-7}@ipc:///tmp/s.ipc`` dials an NNG Pair0
socket at that address; this side listens. Every message starts with three little-endian
32-bit integers ``(type, port, more)``:

- PORT_ADD 0 / PORT_REMOVE 1: PTF starts or stops using ``port``;
- PORT_SET_STATUS 2: ``more`` is 0 (up) or 1 (down);
- PACKET_IN 3: PTF sends a packet into the switch on ``port``; ``more`` is its length, the
  bytes follow;
- PACKET_OUT 4: the switch sends a packet out of ``port`` to PTF (same layout);
- INFO_REQ 5 / INFO_REP 6: ``more`` is HWADDR 0 or CTRS 1; the reply carries a ``<i`` status
  (0 success, 1 not supported) and then the data.

A port exists for PTF from PORT_ADD to PORT_REMOVE; a packet from or to a port that does not
exist or is down is dropped, as on a link without carrier. The switch's CPU port never goes to
PTF (the P4Runtime stream owns it). A malformed message is counted and ignored; when PTF
disconnects its ports are forgotten, so the next PTF run starts clean.
"""
from __future__ import annotations

import logging
import struct
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

PORT_ADD, PORT_REMOVE, PORT_SET_STATUS, PACKET_IN, PACKET_OUT, INFO_REQ, INFO_REP = range(7)
PORT_UP, PORT_DOWN = 0, 1
INFO_HWADDR, INFO_CTRS = 0, 1
INFO_SUCCESS, INFO_NOT_SUPPORTED = 0, 1

HEADER = struct.Struct("<iii")
log = logging.getLogger(__name__)


@dataclass
class PortState:
    """One port as PTF sees it: up or down, and what crossed it."""
    up: bool = True
    packets_in: int = 0     # packets PTF sent into the switch on this port
    packets_out: int = 0    # packets the switch sent to PTF on this port


@dataclass
class SocketStats:
    """What the socket did, for tests and for a server's log on exit."""
    received: int = 0
    sent: int = 0
    dropped: int = 0
    bad_messages: int = 0
    connections: int = 0
    errors: list[str] = field(default_factory=list)


class PtfSocket:
    """Serve PTF's nn platform at ``address`` (``ipc://...`` or ``tcp://host:port``) for ``live``.

    ``live`` is anything with LiveSwitch's ``inject``, ``listen`` and ``cpu_port``.
    Call ``start()`` to listen and ``close()`` to stop; also a context manager.
    """

    RECV_TIMEOUT_MS = 100   # how often the receive loop looks at the stop flag

    def __init__(self, live: Any, address: str):
        self.live = live
        self.address = address
        self.ports: dict[int, PortState] = {}
        self.stats = SocketStats()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._socket = None
        self._thread: threading.Thread | None = None
        self._unlisten: Callable[[], None] | None = None

    # --- lifecycle -----------------------------------------------------------------
    def start(self) -> "PtfSocket":
        """Listen at the address and start serving; raises ValueError for a bad address."""
        import pynng

        sock = pynng.Pair0(recv_timeout=self.RECV_TIMEOUT_MS, send_buffer_size=1024)
        try:
            sock.listen(self.address)
        except pynng.NNGException as err:
            sock.close()
            raise ValueError(f"cannot listen for PTF at {self.address}: {err}") from None
        sock.add_post_pipe_connect_cb(self._connected)
        sock.add_post_pipe_remove_cb(self._disconnected)
        self._socket = sock
        self._unlisten = self.live.listen(self._on_output)
        self._thread = threading.Thread(target=self._serve, name=f"ptf-{self.address}", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving and release the address (an ipc file is removed by NNG)."""
        self._stop.set()
        if self._unlisten is not None:
            self._unlisten()
            self._unlisten = None
        if self._thread is not None:
            self._thread.join(timeout=2)
            self._thread = None
        if self._socket is not None:
            self._socket.close()
            self._socket = None

    def __enter__(self) -> "PtfSocket":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    def _connected(self, _pipe) -> None:
        with self._lock:
            self.stats.connections += 1

    def _disconnected(self, _pipe) -> None:
        # A new PTF run adds its ports again; the old run's ports must not linger.
        with self._lock:
            self.ports.clear()

    # --- PTF -> switch -------------------------------------------------------------
    def _serve(self) -> None:
        import pynng

        while not self._stop.is_set():
            try:
                msg = self._socket.recv()
            except pynng.Timeout:
                continue
            except pynng.NNGException:      # socket closed under us
                break
            try:
                self.handle(msg)
            except Exception as err:        # a bad packet must not stop the server
                log.exception("PTF message failed")
                with self._lock:
                    self.stats.errors.append(f"{type(err).__name__}: {err}")

    def handle(self, msg: bytes) -> None:
        """Act on one message from PTF (public so tests can drive it without a socket)."""
        if len(msg) < HEADER.size:
            self._bad(f"message of {len(msg)} bytes is shorter than its header")
            return
        kind, port, more = HEADER.unpack_from(msg)
        payload = bytes(msg[HEADER.size:])
        if kind == PACKET_IN:
            self._packet_in(port, more, payload)
        elif kind == PORT_ADD:
            with self._lock:
                self.ports.setdefault(port, PortState())
        elif kind == PORT_REMOVE:
            with self._lock:
                self.ports.pop(port, None)
        elif kind == PORT_SET_STATUS:
            if more not in (PORT_UP, PORT_DOWN):
                self._bad(f"port status {more} is neither up (0) nor down (1)")
                return
            with self._lock:
                state = self.ports.get(port)
                if state is not None:
                    state.up = more == PORT_UP
        elif kind == INFO_REQ:
            self._info(port, more)
        else:
            self._bad(f"unknown message type {kind}")

    def _packet_in(self, port: int, length: int, payload: bytes) -> None:
        if length != len(payload):
            self._bad(f"packet on port {port} says {length} bytes but carries {len(payload)}")
            return
        with self._lock:
            state = self.ports.get(port)
            if state is None or not state.up or port == self.live.cpu_port:
                self.stats.dropped += 1
                return
            state.packets_in += 1
            self.stats.received += 1
        self.live.inject(port, payload)

    def _info(self, port: int, info: int) -> None:
        with self._lock:
            state = self.ports.get(port)
            if info == INFO_CTRS and state is not None:
                reply = struct.pack("<iii", INFO_SUCCESS, state.packets_in, state.packets_out)
            else:   # ports have no MAC address here; PTF then reports None
                reply = struct.pack("<i", INFO_NOT_SUPPORTED)
        self._send(HEADER.pack(INFO_REP, port, info) + reply)

    def _bad(self, why: str) -> None:
        log.warning("PTF socket %s: %s", self.address, why)
        with self._lock:
            self.stats.bad_messages += 1

    # --- switch -> PTF -------------------------------------------------------------
    def _on_output(self, port: int, data: bytes) -> None:
        if port == self.live.cpu_port:
            return
        with self._lock:
            state = self.ports.get(port)
            if state is None or not state.up:
                self.stats.dropped += 1
                return
            state.packets_out += 1
        if self._send(HEADER.pack(PACKET_OUT, port, len(data)) + bytes(data)):
            with self._lock:
                self.stats.sent += 1

    def _send(self, msg: bytes) -> bool:
        import pynng

        sock = self._socket
        if sock is None:
            return False
        try:
            sock.send(msg, block=False)     # never stall the pipeline on a slow or gone peer
            return True
        except pynng.NNGException:
            with self._lock:
                self.stats.dropped += 1
            return False
