"""v1model extern functions, bound to one switch.

Calling convention (what the generated code emits): the packet context, then the ``in``
and ``inout`` arguments in order (field lists as tuples of ``(valid, value, width)``,
checksum calls with the validity of the checksum field's header appended), then the
widths of scalar ``out``/``inout`` arguments; their new values are returned.
"""
from __future__ import annotations

import random
from typing import Any, Callable

from dataplane.engine.hashes import hash_function, hash_result
from dataplane.engine.runtime import pack_fields

CLONE_I2E, CLONE_E2E = 0, 1
DROP_PORT = 511


class DigestValues(tuple):
    """The field values of one v1model ``digest`` call: a tuple (what ``Switch.digests()`` gives)
    that also carries the name of the digest's struct type, by which P4Info names the digest
    (None for a list of fields, which P4Info names ``digest_N``)."""

    type_name: str | None

    def __new__(cls, values: tuple, type_name: str | None = None) -> DigestValues:
        self = super().__new__(cls, values)
        self.type_name = type_name
        return self


def bind_functions(switch: Any, hash_algorithms: tuple[str, ...]) -> dict[str, Callable]:
    """The extern function table for ``switch``; enum arguments arrive as member indexes."""
    rng: random.Random = switch.rng

    by_index = [hash_function(name, rng=rng) for name in hash_algorithms]

    def algo(index: int) -> Callable[[bytes], int]:
        return by_index[index]

    def packed(data) -> bytes:
        # The generated code packs single-header lists itself; others come as triples.
        return data if data.__class__ is bytes else pack_fields(data)

    def mark_to_drop(ctx, sm=None) -> None:
        sm = sm if sm is not None else ctx.sm
        sm.egress_spec = DROP_PORT
        sm.mcast_grp = 0

    def hash_(ctx, algorithm, base, data, max_value, width) -> int:
        return hash_result(algo(algorithm)(packed(data)), base, max_value, width)

    hash_.algorithms = by_index  # the generated code calls these itself (StmtGen.inline_hash)

    def verify_checksum(ctx, condition, data, checksum, algorithm, header_valid=True) -> None:
        if condition and header_valid and algo(algorithm)(packed(data)) != checksum:
            ctx.sm.checksum_error = 1

    def verify_checksum_with_payload(ctx, condition, data, checksum, algorithm, header_valid=True) -> None:
        if condition and header_valid and algo(algorithm)(packed(data) + ctx.payload) != checksum:
            ctx.sm.checksum_error = 1

    def update_checksum(ctx, condition, data, checksum, algorithm, header_valid, width) -> int:
        if not condition:
            return checksum
        return algo(algorithm)(packed(data)) & ((1 << width) - 1)

    def update_checksum_with_payload(ctx, condition, data, checksum, algorithm, header_valid, width) -> int:
        if not condition:
            return checksum
        return algo(algorithm)(packed(data) + ctx.payload) & ((1 << width) - 1)

    def random_(ctx, lo, hi, width) -> int:
        if hi < lo:
            return lo
        return rng.randint(lo, hi) & ((1 << width) - 1)

    def digest(ctx, receiver, data, type_name=None) -> None:
        switch.digests.append((receiver, DigestValues(tuple(v for valid, v, w in data), type_name)))

    def clone(ctx, clone_type, session) -> None:
        ctx.clone_request = (clone_type, session, None)

    def clone3(ctx, clone_type, session, data) -> None:
        ctx.clone_request = (clone_type, session, None)

    def clone_preserving_field_list(ctx, clone_type, session, index) -> None:
        ctx.clone_request = (clone_type, session, index)

    def resubmit(ctx, data=None) -> None:
        ctx.resubmit_request = -1

    def resubmit_preserving_field_list(ctx, index) -> None:
        ctx.resubmit_request = index

    def recirculate(ctx, data=None) -> None:
        ctx.recirculate_request = -1

    def recirculate_preserving_field_list(ctx, index) -> None:
        ctx.recirculate_request = index

    def truncate(ctx, length) -> None:
        # BMv2 keeps the smallest length asked for (Packet::truncate).
        if ctx.truncate_length is None or length < ctx.truncate_length:
            ctx.truncate_length = length

    def assert_(ctx, condition) -> None:
        if not condition:
            switch.assertion_failed(ctx, "assert")

    def assume(ctx, condition) -> None:
        if not condition:
            switch.assertion_failed(ctx, "assume")

    def log_msg(ctx, message, data=()) -> None:
        values = [v for valid, v, w in data]
        text = message
        for v in values:
            text = text.replace("{}", str(v), 1)
        switch.log_messages.append(text)
        if ctx.trace is not None:
            ctx.trace.log(text)

    return {
        "mark_to_drop": mark_to_drop, "hash": hash_, "verify_checksum": verify_checksum,
        "verify_checksum_with_payload": verify_checksum_with_payload, "update_checksum": update_checksum,
        "update_checksum_with_payload": update_checksum_with_payload, "random": random_, "digest": digest,
        "clone": clone, "clone3": clone3, "clone_preserving_field_list": clone_preserving_field_list,
        "resubmit": resubmit, "resubmit_preserving_field_list": resubmit_preserving_field_list,
        "recirculate": recirculate, "recirculate_preserving_field_list": recirculate_preserving_field_list,
        "truncate": truncate, "assert": assert_, "assume": assume, "log_msg": log_msg,
    }
