"""SetForwardingPipelineConfig and GetForwardingPipelineConfig (spec section 15).

The device config is the preprocessed program (see ``dataplane.control.device_config`` for
the format and why); the server compiles it when a controller sets the pipeline, in a child
process with limits and reading no file but the bundled architecture includes (``compiler``). A server
started with a program also takes another target's device config (BMv2 JSON) with that
program's P4Info, in place of its own (``foreign_config``; the check is ``Pipelines.own_config``).
"""
from __future__ import annotations

from typing import Callable

import grpc
from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2

from dataplane.control.config_errors import ControlPlaneError
from dataplane.control.device_config import HEADER, DeviceConfigError, parse_device_config
from dataplane.control.p4runtime import foreign_config
from dataplane.control.p4runtime.compiler import BoundedCompiler
from dataplane.control.p4runtime.context import PipelineState
from dataplane.control.p4runtime.status import P4RuntimeError, invalid
from dataplane.control.switch import Switch
from dataplane.errors import DataplaneError

Req = p4runtime_pb2.SetForwardingPipelineConfigRequest
GetReq = p4runtime_pb2.GetForwardingPipelineConfigRequest


def load_switch(device_config: bytes, compiler: BoundedCompiler, *, name: str = "s1",
                abandon: Callable[[], bool] = lambda: False) -> Switch:
    """Compile a pushed device config with ``compiler`` and load it as a switch: INVALID_ARGUMENT
    with the compiler's messages, RESOURCE_EXHAUSTED past the compiler's limits, CANCELLED
    when ``abandon()`` turns true (``BoundedCompiler.compile``)."""
    try:
        fields, body = parse_device_config(device_config)
    except DeviceConfigError as err:
        raise invalid(str(err)) from None
    program = compiler.compile(body, _source(fields), abandon=abandon)
    arch = getattr(program, "architecture", "v1model")
    if fields.get("arch") and fields["arch"] != arch:
        raise invalid(f"the device config says arch={fields['arch']} but its program is {arch}")
    try:
        return Switch(program, name=name)
    except (ControlPlaneError, DataplaneError) as err:
        raise invalid(f"the device config cannot be loaded: {err}") from None
    except Exception as err:   # an engine limitation on an unusual program: say so, do not crash the RPC
        raise P4RuntimeError(grpc.StatusCode.INTERNAL, f"the emulator cannot load this program "
                             f"({type(err).__name__}: {err})") from None


def _source(fields: dict[str, str]) -> str:
    return f"<device config {fields.get('source', 'program')}>"


def verify(p4info: p4info_pb2.P4Info, device_config: bytes, cookie: int, name: str,
           switch: Switch | None = None, *, compiler: BoundedCompiler | None = None,
           abandon: Callable[[], bool] = lambda: False) -> PipelineState:
    """A new pipeline from a config (compiled by ``compiler``, or ``switch``, already loaded from
    it); INVALID_ARGUMENT if the P4Info names what the program lacks."""
    if switch is None:
        if compiler is None:
            raise TypeError("verify() needs a switch or a compiler")
        switch = load_switch(device_config, compiler, name=name, abandon=abandon)
    state = PipelineState(p4info, device_config, cookie, switch)
    problems = []
    for t in p4info.tables:
        problems += _try(switch.table, t.preamble.name)
    for kind, ext in (("counters", "counter"), ("direct_counters", "direct_counter"), ("meters", "meter"),
                      ("direct_meters", "direct_meter"), ("registers", "register"), ("value_sets", "value_set")):
        for o in getattr(p4info, kind):
            problems += _try(switch._instance, o.preamble.name, ext)
    if problems:
        raise invalid("the P4Info does not match the device config's program: " + "; ".join(problems[:5]))
    return state


def _try(fn, *args) -> list[str]:
    try:
        fn(*args)
    except ControlPlaneError as err:
        return [str(err)]
    return []


class Pipelines:
    """The committed pipeline of one device and the one saved by VERIFY_AND_SAVE."""

    def __init__(self, live, compiler: BoundedCompiler):
        self.live = live
        self.compiler = compiler
        self.current: PipelineState | None = None
        self.saved: PipelineState | None = None
        # (P4Info, device config) of the program the server was started with: what a foreign
        # device config stands for (own_config)
        self.known: tuple[p4info_pb2.P4Info, bytes] | None = None

    def own_config(self, p4info: p4info_pb2.P4Info, device_config: bytes) -> bytes:
        """The device config to load for a pushed one: itself if it is this emulator's (also inside
        PI's P4DeviceConfig), the known program's if it is another target's (BMv2 JSON) and
        ``p4info`` describes that program; INVALID_ARGUMENT saying what to push otherwise."""
        inner = foreign_config.unwrap(device_config)
        if inner.startswith(HEADER.encode()):
            return inner      # this emulator's, bare or in PI's P4DeviceConfig (the tutorials' wrapper)
        what = foreign_config.describe(device_config)
        push = ("push this emulator's device config with the program's P4Info instead (write both "
                "with 'dataplane compile PROG --p4info FILE --device-config FILE')")
        if self.known is None:
            raise invalid(f"the device config is {what}, which this emulator cannot run (it runs P4 "
                          f"source), and the server was started without a program to run in its place; "
                          f"{push}, or start the server with the program ('dataplane serve PROG')")
        known_p4info, known_config = self.known
        problems = foreign_config.same_program(p4info, known_p4info)
        if problems:
            source = parse_device_config(known_config)[0].get("source", "its program")
            raise invalid(f"the device config is {what}, which this emulator cannot run (it runs P4 "
                          f"source); it stands for the program this server runs ({source}) only with "
                          f"that program's P4Info, and the pushed P4Info describes another program: "
                          f"{'; '.join(problems[:5])}; {push}")
        return known_config

    def start_with(self, p4info: p4info_pb2.P4Info, device_config: bytes, switch: Switch) -> None:
        """Commit the pipeline the server starts with: ``switch``, loaded from ``device_config``
        (the program given on the command line); a foreign config pushed later stands for it."""
        state = verify(p4info, device_config, 0, getattr(self.live, "name", "s1"), switch)
        self._commit(state)
        self.known = (p4info, device_config)
        try:
            fields, body = parse_device_config(device_config)
        except DeviceConfigError:
            return
        self.compiler.remember(body, _source(fields), switch.program)

    def set(self, req: p4runtime_pb2.SetForwardingPipelineConfigRequest, replay,
            abandon: Callable[[], bool] = lambda: False) -> None:
        """Carry out ``req.action``; ``replay(old, new)`` copies forwarding state for RECONCILE_AND_COMMIT;
        a compile gives up when ``abandon()`` turns true (the client left, the server stops)."""
        action, config = req.action, req.config
        name = getattr(self.live, "name", "s1")
        if action == Req.COMMIT:
            if self.saved is None:
                raise P4RuntimeError(grpc.StatusCode.FAILED_PRECONDITION, "COMMIT without a saved config "
                                     "(send VERIFY_AND_SAVE first)")
            self._commit(self.saved)
            self.saved = None
            return
        if action not in (Req.VERIFY, Req.VERIFY_AND_SAVE, Req.VERIFY_AND_COMMIT, Req.RECONCILE_AND_COMMIT):
            raise invalid(f"unsupported SetForwardingPipelineConfig action {action}")
        if not config.HasField("p4info"):
            raise invalid("the config has no P4Info")
        device_config = config.p4_device_config
        if not device_config and self.current is not None:
            device_config = self.current.device_config   # a new P4Info for the running program
        if not device_config:
            raise invalid("the config has no p4_device_config (write one with 'dataplane compile PROG "
                          "--device-config FILE')")
        cookie = config.cookie.cookie if config.HasField("cookie") else 0
        if action == Req.RECONCILE_AND_COMMIT and self.current is not None \
                and self.current.device_config == device_config and self.current.p4info == config.p4info:
            self.current.cookie = cookie      # the same pipeline: nothing to reconcile
            return
        state = verify(config.p4info, self.own_config(config.p4info, device_config), cookie, name,
                       compiler=self.compiler, abandon=abandon)
        state.device_config = device_config     # GetForwardingPipelineConfig returns what was pushed
        if action == Req.VERIFY:
            return
        if action == Req.VERIFY_AND_SAVE:
            self.saved = state
            return
        if action == Req.RECONCILE_AND_COMMIT and self.current is not None:
            state.clock = getattr(self.live, "now_us", None)
            replay(self.current, state)
        self._commit(state)

    def _commit(self, state: PipelineState) -> None:
        state.clock = getattr(self.live, "now_us", None)
        with self.live.lock:
            self.current = state
            self.live.replace(state.switch)

    def get(self, req: p4runtime_pb2.GetForwardingPipelineConfigRequest) -> p4runtime_pb2.GetForwardingPipelineConfigResponse:
        out = p4runtime_pb2.GetForwardingPipelineConfigResponse()
        state = self.current
        if state is None:
            return out       # no pipeline yet: an empty config, as BMv2's server answers
        rt = req.response_type
        if rt in (GetReq.ALL, GetReq.P4INFO_AND_COOKIE):
            out.config.p4info.CopyFrom(state.p4info)
        if rt in (GetReq.ALL, GetReq.DEVICE_CONFIG_AND_COOKIE):
            out.config.p4_device_config = state.device_config
        if rt not in (GetReq.ALL, GetReq.COOKIE_ONLY, GetReq.P4INFO_AND_COOKIE, GetReq.DEVICE_CONFIG_AND_COOKIE):
            raise invalid(f"unknown response_type {rt}")
        out.config.cookie.cookie = state.cookie
        return out
