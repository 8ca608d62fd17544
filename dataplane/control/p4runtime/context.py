"""What a Write or Read works on: the loaded switch, the P4Info and the P4Runtime-only state.

Some P4Runtime state has no place in the switch API and lives here, per pipeline: action
profile members and groups (entries that use them are installed as plain actions or
selector groups, and re-installed when a member changes), the meter configurations last
written (the switch keeps token buckets, not the rates as given), digest configurations
and idle timeouts.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import grpc
from p4.config.v1 import p4info_pb2

from dataplane.control.config_errors import ControlPlaneError
from dataplane.control.p4runtime.p4info_index import P4InfoIndex
from dataplane.control.p4runtime.status import P4RuntimeError, invalid
from dataplane.control.switch import Switch


@dataclass
class PipelineState:
    """One committed (or saved) forwarding pipeline."""

    p4info: p4info_pb2.P4Info
    device_config: bytes
    cookie: int
    switch: Switch
    index: P4InfoIndex = field(init=False)
    members: dict[int, dict[int, Any]] = field(default_factory=dict)      # profile id -> member id -> Member
    groups: dict[int, dict[int, Any]] = field(default_factory=dict)       # profile id -> group id -> Group
    refs: dict[tuple[int, int], tuple[str, int]] = field(default_factory=dict)  # (table, handle) -> (kind, id)
    meter_configs: dict[tuple[int, int], Any] = field(default_factory=dict)     # (meter id, index) -> MeterConfig
    direct_meter_configs: dict[tuple[int, int], Any] = field(default_factory=dict)  # (table, handle) -> config
    digest_configs: dict[int, Any] = field(default_factory=dict)          # digest id -> DigestConfig
    idle_timeouts: dict[tuple[int, int], int] = field(default_factory=dict)  # (table, handle) -> ns
    clock: Any = None      # the device clock in µs (LiveSwitch.now_us), set when committed
    ageing: Any = None     # idle.Ageing: the idle-timeout sweeps, from the first poll of this pipeline

    def __post_init__(self):
        self.index = P4InfoIndex(self.p4info)

    def now_us(self) -> int:
        return self.clock() if self.clock is not None else 0


# BMv2's code of a refused call -> the gRPC status P4Runtime gives it (spec 12.x "Error reporting");
# every other code is INVALID_ARGUMENT.
GRPC_STATUS = {"DUPLICATE_ENTRY": "ALREADY_EXISTS", "INVALID_HANDLE": "NOT_FOUND", "TABLE_FULL": "RESOURCE_EXHAUSTED"}


def switch_call(fn, *args, **kwargs):
    """Call the switch API; its ``ControlPlaneError`` becomes the gRPC status its code maps to
    (``GRPC_STATUS``), INVALID_ARGUMENT for the rest."""
    try:
        return fn(*args, **kwargs)
    except P4RuntimeError:
        raise
    except ControlPlaneError as err:
        status = GRPC_STATUS.get(err.code)
        if status is None:
            raise invalid(str(err)) from err
        raise P4RuntimeError(getattr(grpc.StatusCode, status), str(err)) from err
