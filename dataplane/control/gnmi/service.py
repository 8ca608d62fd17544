"""The gNMI service of one switch: Capabilities, Get, Set and Subscribe over a source's leaves.

Timestamps are the simulated clock in ns, on the Unix clock from the source's ``epoch_ns``
(its simulated time 0; a timestamp less ``epoch_ns`` is simulated time). Under ``run --serve``
simulated time follows the wall clock, and so does every interval here, a SAMPLE's
``sample_interval`` and a ``heartbeat_interval`` being ns of simulated time. While the network
holds still at time 0 (before the traffic starts) nothing is due.

Subscribe (gNMI specification 3.5): the first request is a ``SubscriptionList``.
``ONCE``: the matching leaves, ``sync_response``, the end. ``POLL``: the same, then again for
every ``poll`` request (with ``updates_only``: only ``sync_response`` first, then what changed
since the last answer). ``STREAM``: the leaves, ``sync_response``, then per subscription
``SAMPLE`` (every ``sample_interval``; 0: ``MIN_SAMPLE_NS``; below it: INVALID_ARGUMENT; with
``suppress_redundant`` only the leaves that changed, and all of them every
``heartbeat_interval``), ``ON_CHANGE`` (a leaf when its value changes, checked every
``MIN_SAMPLE_NS``; all again every ``heartbeat_interval``), ``TARGET_DEFINED`` (ON_CHANGE: the
counters and states here are read at one instant, so a change is a sample). ``updates_only``
leaves out the first leaves. When the server stops (the run has ended), a STREAM sends what
changed since it last sent, then ends: its client holds the run's final values. A path with no data yet sends nothing (it is not an error);
malformed and unknown paths fail the call (``paths``). Encodings: PROTO (typed scalars), JSON
and JSON_IETF (RFC 7951: 64-bit integers as strings); others are UNIMPLEMENTED. Set is
UNIMPLEMENTED: this target has no configuration.
"""
from __future__ import annotations

import json
import queue
import threading
from typing import Any, Iterator

import grpc
from pygnmi.spec.v080 import gnmi_pb2, gnmi_pb2_grpc

from dataplane.control.gnmi.paths import GnmiError, ListNode, check_path, matches, path_text, request_elems, to_proto

__all__ = ["GnmiService", "GNMI_VERSION", "MIN_SAMPLE_NS", "MAX_SUBSCRIPTIONS", "MODELS"]

GNMI_VERSION = "0.8.0"          # the protos' (pygnmi.spec.v080)
MIN_SAMPLE_NS = 10_000_000      # 10 ms of simulated time: the shortest interval served (a reading
                                # costs ~50 us a port under the simulator's lock)
MAX_SUBSCRIPTIONS = 64          # paths in one SubscriptionList, or one GetRequest
MAX_POLLS_WAITING = 16          # polls queued before the stream is ended (RESOURCE_EXHAUSTED)
MODELS = (("openconfig-interfaces", "OpenConfig working group"), ("openconfig-if-ethernet", "OpenConfig working group"),
          ("openconfig-qos", "OpenConfig working group"))
ENCODINGS = (gnmi_pb2.JSON, gnmi_pb2.JSON_IETF, gnmi_pb2.PROTO)
Mode = gnmi_pb2.SubscriptionList
SubMode = gnmi_pb2.SubscriptionMode


class GnmiService(gnmi_pb2_grpc.gNMIServicer):
    """gNMI for one source (``CounterSource``); ``stopping`` ends every stream within a wake."""

    def __init__(self, source: Any, max_streams: int):
        self.source = source
        self.schema = source.schema(ListNode)
        self.stopping = threading.Event()
        self._streams = threading.BoundedSemaphore(max_streams)
        self.max_streams = max_streams
        self._reading: tuple[int, dict] | None = None
        self._reading_lock = threading.Lock()

    def _leaves(self) -> tuple[int, dict]:
        """The source's leaves; one reading per instant of simulated time, shared by the streams
        that wake within it (the simulator runs in steps, the streams on their own threads)."""
        now = self.source.now_ns()
        with self._reading_lock:
            if self._reading is None or self._reading[0] != now:
                self._reading = self.source.leaves()
            return self._reading

    # ---- unary -------------------------------------------------------------------------------
    def Capabilities(self, request, context):
        return gnmi_pb2.CapabilityResponse(
            supported_models=[gnmi_pb2.ModelData(name=n, organization=o) for n, o in MODELS],
            supported_encodings=list(ENCODINGS), gNMI_version=GNMI_VERSION)

    def Get(self, request, context):
        try:
            _check_encoding(request.encoding)
            if request.type == gnmi_pb2.GetRequest.CONFIG:
                raise GnmiError(grpc.StatusCode.NOT_FOUND, "this target has no configuration data, only state")
            paths = list(request.path) or [gnmi_pb2.Path()]
            if len(paths) > MAX_SUBSCRIPTIONS:
                raise GnmiError(grpc.StatusCode.INVALID_ARGUMENT, f"{len(paths)} paths (at most {MAX_SUBSCRIPTIONS})")
            self._check_target(request.prefix)
            wanted = [self._elems(request.prefix, p) for p in paths]
            now, leaves = self.source.leaves()      # Get: this instant, whatever the streams share
            notes = []
            for elems in wanted:
                found = [(leaf, v) for leaf, v in leaves.items() if matches(elems, leaf)]
                if not found:
                    raise GnmiError(grpc.StatusCode.NOT_FOUND, f"{path_text(elems)}: no such data on {self.source.name}")
                notes.append(self._notification(now, found, request.encoding, request.prefix))
        except GnmiError as err:
            context.abort(err.code, err.message)
        except Exception as err:     # a bug: the client is told so, the server serves on
            context.abort(grpc.StatusCode.INTERNAL, f"{type(err).__name__}: {err}")
        return gnmi_pb2.GetResponse(notification=notes)

    def Set(self, request, context):
        context.abort(grpc.StatusCode.UNIMPLEMENTED, "Set: this target serves state only, it has no configuration")

    # ---- Subscribe ---------------------------------------------------------------------------
    def Subscribe(self, request_iterator, context):
        if not self._streams.acquire(blocking=False):
            context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                          f"this target has {self.max_streams} subscriptions open, its limit; close one or try later")
        try:
            yield from self._subscribe(request_iterator, context)
        except GnmiError as err:
            context.abort(err.code, err.message)
        except grpc.RpcError:
            pass                     # the client went away while its requests were read
        except Exception as err:     # a bug: the client is told so, the server serves on
            context.abort(grpc.StatusCode.INTERNAL, f"{type(err).__name__}: {err}")
        finally:
            self._streams.release()

    def _subscribe(self, requests: Iterator, context) -> Iterator:
        first = next(requests, None)
        if first is None:
            return
        if not first.HasField("subscribe"):
            raise GnmiError(grpc.StatusCode.INVALID_ARGUMENT, "the first SubscribeRequest must hold a SubscriptionList")
        sub = first.subscribe
        _check_encoding(sub.encoding)
        self._check_target(sub.prefix)
        if not sub.subscription:
            raise GnmiError(grpc.StatusCode.INVALID_ARGUMENT, "a SubscriptionList with no Subscription")
        if len(sub.subscription) > MAX_SUBSCRIPTIONS:
            raise GnmiError(grpc.StatusCode.INVALID_ARGUMENT,
                            f"{len(sub.subscription)} subscriptions (at most {MAX_SUBSCRIPTIONS})")
        subs = [_Sub(self._elems(sub.prefix, s.path), s, sub.mode) for s in sub.subscription]
        if sub.mode == Mode.STREAM:
            yield from self._stream(subs, sub, context)
            return
        if not sub.updates_only:
            yield from self._updates(subs, sub, force=True)
        else:
            self._updates_quiet(subs)
        yield gnmi_pb2.SubscribeResponse(sync_response=True)
        if sub.mode == Mode.ONCE:
            return
        polls = self._reader(requests, context)
        while True:
            item = _next(polls, self.stopping, context)
            if item is None:
                return
            if isinstance(item, GnmiError):
                raise item
            if sub.updates_only:       # 3.5.2.3: only what changed since the last answer
                yield from self._changes(subs, sub)
            else:
                yield from self._updates(subs, sub, force=True)
            yield gnmi_pb2.SubscribeResponse(sync_response=True)

    def _reader(self, requests: Iterator, context) -> queue.Queue:
        """POLL: the client's poll requests, read on a thread of their own, into a bounded queue."""
        polls: queue.Queue = queue.Queue()

        def read() -> None:
            try:
                for req in requests:
                    if not req.HasField("poll"):
                        polls.put(GnmiError(grpc.StatusCode.INVALID_ARGUMENT,
                                            "after a POLL SubscriptionList, only Poll requests"))
                        return
                    if polls.qsize() >= MAX_POLLS_WAITING:
                        polls.put(GnmiError(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                            f"{MAX_POLLS_WAITING} polls waiting: poll after each sync_response"))
                        return
                    polls.put(True)
            except grpc.RpcError:
                pass
            polls.put(None)

        threading.Thread(target=read, name="gnmi-poll", daemon=True).start()
        return polls

    def _stream(self, subs: list["_Sub"], sub: Any, context) -> Iterator:
        for s in subs:
            s.check_stream()
        now = self.source.now_ns()
        for s in subs:
            s.start(now)
        if not sub.updates_only:
            yield from self._updates(subs, sub, force=True)
        else:
            self._updates_quiet(subs)
        yield gnmi_pb2.SubscribeResponse(sync_response=True)
        while context.is_active() and not self.stopping.is_set():
            now = self.source.now_ns()
            wait_ns = min(s.next_due - now for s in subs)
            if wait_ns > 0:
                # Simulated time follows the wall clock here: wait as long, a wake at least every 50 ms.
                self.stopping.wait(min(max(wait_ns / 1e9, 0.001), 0.05))
                continue
            yield from self._updates(subs, sub, force=False)
        if self.stopping.is_set() and context.is_active():
            # The run has ended: what changed since each subscription last sent, so the client
            # ends with the run's final values (a simulator far behind may have jumped to its end).
            yield from self._changes(subs, sub)

    def _changes(self, subs: list["_Sub"], sub: Any) -> Iterator:
        """One notification per subscription with the leaves that changed since it last sent."""
        now, leaves = self._leaves()
        for s in subs:
            found = s.changes(leaves)
            if found:
                yield gnmi_pb2.SubscribeResponse(update=self._notification(now, found, sub.encoding, sub.prefix))

    def _updates(self, subs: list["_Sub"], sub: Any, force: bool) -> Iterator:
        """One notification per subscription with leaves to send now (all of them when ``force``)."""
        now, leaves = self._leaves()
        for s in subs:
            if not force and s.next_due > now:
                continue
            found = s.select(leaves, now, force)
            if found:
                note = self._notification(now, found, sub.encoding, sub.prefix)
                yield gnmi_pb2.SubscribeResponse(update=note)

    def _updates_quiet(self, subs: list["_Sub"]) -> None:
        now, leaves = self._leaves()
        for s in subs:
            s.select(leaves, now, True)

    # ---- helpers -----------------------------------------------------------------------------
    def _elems(self, prefix: Any, path: Any) -> tuple:
        elems = request_elems(prefix, path)
        check_path(elems, self.schema)
        return elems

    def _check_target(self, prefix: Any) -> None:
        if prefix.target and prefix.target != self.source.name:
            raise GnmiError(grpc.StatusCode.NOT_FOUND,
                            f"target {prefix.target!r}: this server is {self.source.name!r}'s")

    def _notification(self, now: int, found: list, encoding: int, prefix: Any) -> Any:
        updates = [gnmi_pb2.Update(path=to_proto(gnmi_pb2, leaf), val=_value(v, encoding)) for leaf, v in found]
        note = gnmi_pb2.Notification(timestamp=self.source.epoch_ns + now, update=updates)
        if prefix.target or prefix.origin:
            note.prefix.CopyFrom(gnmi_pb2.Path(target=prefix.target, origin=prefix.origin))
        return note


class _Sub:
    """One Subscription: its paths, mode, intervals, and the values last sent (for changes)."""

    def __init__(self, elems: tuple, s: Any, list_mode: int):
        self.elems = elems
        self.mode = s.mode if list_mode == Mode.STREAM else None
        self.sample_ns = s.sample_interval
        self.heartbeat_ns = s.heartbeat_interval
        self.suppress = s.suppress_redundant
        self.sent: dict = {}
        self._paths: list | None = None      # the leaves' paths it selects (the ports do not change)
        self.next_due = 0
        self.next_beat = 0

    def check_stream(self) -> None:
        where = path_text(self.elems)
        if self.mode == SubMode.SAMPLE:
            if self.sample_ns == 0:
                self.sample_ns = MIN_SAMPLE_NS
            elif self.sample_ns < MIN_SAMPLE_NS:
                raise GnmiError(grpc.StatusCode.INVALID_ARGUMENT, f"{where}: sample_interval {self.sample_ns} ns is "
                                f"below this target's shortest, {MIN_SAMPLE_NS} ns")
        elif self.mode == SubMode.TARGET_DEFINED and self.sample_ns:
            raise GnmiError(grpc.StatusCode.INVALID_ARGUMENT, f"{where}: TARGET_DEFINED takes no sample_interval")
        if self.heartbeat_ns and self.heartbeat_ns < MIN_SAMPLE_NS:
            raise GnmiError(grpc.StatusCode.INVALID_ARGUMENT, f"{where}: heartbeat_interval {self.heartbeat_ns} ns is "
                            f"below this target's shortest, {MIN_SAMPLE_NS} ns")

    def start(self, now: int) -> None:
        self.next_due = now + self._period()
        self.next_beat = now + self.heartbeat_ns if self.heartbeat_ns else 0

    def _period(self) -> int:
        return self.sample_ns if self.mode == SubMode.SAMPLE else MIN_SAMPLE_NS

    def changes(self, leaves: dict) -> list:
        """The (leaf, value) pairs that differ from what was last sent."""
        found = [(leaf, leaves[leaf]) for leaf in self._paths or () if leaf in leaves and
                 self.sent.get(leaf) != leaves[leaf]]
        for leaf, v in found:
            self.sent[leaf] = v
        return found

    def select(self, leaves: dict, now: int, force: bool) -> list:
        """The (leaf, value) pairs to send now; the next time this subscription is due."""
        if self._paths is None or any(p not in leaves for p in self._paths):
            self._paths = [leaf for leaf in leaves if matches(self.elems, leaf)]
        found = [(leaf, leaves[leaf]) for leaf in self._paths]
        if self.mode is not None and not force:
            self.next_due = _after(self.next_due, now, self._period())
            beat = bool(self.next_beat) and now >= self.next_beat
            if beat:
                self.next_beat = _after(self.next_beat, now, self.heartbeat_ns)
            only_changes = self.mode != SubMode.SAMPLE or self.suppress
            if only_changes and not beat:
                found = [(leaf, v) for leaf, v in found if self.sent.get(leaf) != v]
        for leaf, v in found:
            self.sent[leaf] = v
        return found


def _after(due: int, now: int, period: int) -> int:
    """The next due time on the grid ``due + k * period`` after ``now``: one send per interval,
    on the subscription's own schedule; intervals missed (the client read slowly, the simulator
    ran a long step) are skipped, not caught up in a burst."""
    return due + ((now - due) // period + 1) * period


def _next(polls: queue.Queue, stopping: threading.Event, context) -> Any:
    """The next item of ``polls``; None when the client or the server has gone."""
    while context.is_active() and not stopping.is_set():
        try:
            return polls.get(timeout=0.05)
        except queue.Empty:
            continue
    return None


def _check_encoding(encoding: int) -> None:
    if encoding not in ENCODINGS:
        name = gnmi_pb2.Encoding.Name(encoding) if encoding in gnmi_pb2.Encoding.values() else str(encoding)
        raise GnmiError(grpc.StatusCode.UNIMPLEMENTED, f"encoding {name}: this target sends JSON, JSON_IETF and PROTO")


def _value(v: Any, encoding: int) -> Any:
    if encoding == gnmi_pb2.JSON:
        return gnmi_pb2.TypedValue(json_val=json.dumps(v).encode())
    if encoding == gnmi_pb2.JSON_IETF:     # RFC 7951 6.1: uint64 as a string
        return gnmi_pb2.TypedValue(json_ietf_val=json.dumps(str(v) if isinstance(v, int) else v).encode())
    if isinstance(v, int):
        return gnmi_pb2.TypedValue(uint_val=v)
    return gnmi_pb2.TypedValue(string_val=str(v))
