"""What carries the StreamChannels: a bounded outbox per stream, fair packet-out, a stream count.

A client that opens a stream and stops reading, or one that sends packet-outs as fast as it can,
must cost the server a bounded amount and take nothing from the other clients:

* ``Outbox``: the messages waiting to go to one client, at most ``MAX_MESSAGES`` and
  ``MAX_BYTES``; past that new packet-ins, digests and notifications for that client are dropped
  (and counted), as a switch drops packets to a CPU port nobody reads. Closing it (the stream
  ended, the server stops, an error for the client) always gets through.
* ``PacketOuts``: one thread per server takes the packet-outs of all streams in turn, one per
  stream per round, each stream holding at most ``PER_STREAM`` waiting; a stream with a full
  share waits before reading more from its client (gRPC's flow control then slows that client
  alone), so one client's flood delays another's packet by at most one packet per stream.
* ``Slots``: the number of open streams, refused past a limit.
"""
from __future__ import annotations

import threading
from collections import deque
from typing import Any, Callable, Iterator

MAX_MESSAGES = 1024
MAX_BYTES = 4 << 20
PER_STREAM = 32


class Outbox:
    """The messages for one client; ``put`` never blocks, ``__iter__`` yields until ``close``."""

    def __init__(self, max_messages: int = MAX_MESSAGES, max_bytes: int = MAX_BYTES):
        self._cond = threading.Condition()
        self._items: deque = deque()
        self._bytes = 0
        self._max_messages, self._max_bytes = max_messages, max_bytes
        self._closed = False
        self.error: Any = None          # what ends the stream, if not its normal end
        self.dropped = 0

    def put(self, msg: Any) -> bool:
        """Queue ``msg``; False (and counted in ``dropped``) if the outbox is full or closed."""
        size = msg.ByteSize()
        with self._cond:
            if self._closed or len(self._items) >= self._max_messages or self._bytes + size > self._max_bytes:
                self.dropped += not self._closed
                return False
            self._items.append((msg, size))
            self._bytes += size
            self._cond.notify()
            return True

    def close(self, error: Any = None) -> None:
        """End the stream after what is queued (``error``: end it with that error instead)."""
        with self._cond:
            if not self._closed:
                self._closed, self.error = True, error
                if error is not None:
                    self._items.clear()
            self._cond.notify_all()

    def __iter__(self) -> Iterator[Any]:
        while True:
            with self._cond:
                while not self._items and not self._closed:
                    self._cond.wait()
                if not self._items:
                    return
                msg, size = self._items.popleft()
                self._bytes -= size
            yield msg


class PacketOuts:
    """Round-robin packet-out for every stream of a server: ``handle(stream, packet)`` runs on
    one thread, a packet from each stream with packets waiting in turn."""

    def __init__(self, handle: Callable[[Any, Any], None], per_stream: int = PER_STREAM):
        self._handle = handle
        self._per_stream = per_stream
        self._cond = threading.Condition()
        self._waiting: dict[Any, deque] = {}    # open stream -> its packets
        self._turns: deque = deque()             # streams with packets, in the order they are served
        self._busy: Any = None                   # the stream whose packet is being handled
        self._closed = False
        self._thread: threading.Thread | None = None

    def open(self, stream: Any) -> None:
        with self._cond:
            self._waiting[stream] = deque()

    def forget(self, stream: Any) -> None:
        """The stream ended: its waiting packets are dropped and a blocked ``submit`` returns."""
        with self._cond:
            self._waiting.pop(stream, None)
            if stream in self._turns:
                self._turns.remove(stream)
            self._cond.notify_all()

    def submit(self, stream: Any, packet: Any) -> bool:
        """Queue a packet-out; blocks while the stream has its share waiting. False if the stream
        or the server has ended."""
        with self._cond:
            while True:
                queue = self._waiting.get(stream)
                if queue is None or self._closed:
                    return False
                if len(queue) < self._per_stream:
                    break
                self._cond.wait()
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="p4rt-packet-out", daemon=True)
                self._thread.start()
            queue.append(packet)
            if stream not in self._turns:
                self._turns.append(stream)
            self._cond.notify_all()
            return True

    def drain(self, stream: Any) -> None:
        """Wait until the stream's packet-outs have been handled (or it or the server ended)."""
        with self._cond:
            while not self._closed and (self._waiting.get(stream) or self._busy is stream):
                self._cond.wait()

    def _run(self) -> None:
        while True:
            with self._cond:
                self._busy = None
                self._cond.notify_all()             # drain() and streams blocked on their share go on
                while not self._turns and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
                stream = self._busy = self._turns.popleft()
                queue = self._waiting[stream]
                packet = queue.popleft()
                if queue:
                    self._turns.append(stream)      # the back of the line: one packet a turn
            self._handle(stream, packet)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._waiting.clear()
            self._turns.clear()
            self._cond.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2)


class Slots:
    """At most ``limit`` streams open at once."""

    def __init__(self, limit: int):
        self.limit = limit
        self._lock = threading.Lock()
        self.open = 0

    def take(self) -> bool:
        with self._lock:
            if self.open >= self.limit:
                return False
            self.open += 1
            return True

    def give_back(self) -> None:
        with self._lock:
            self.open -= 1
