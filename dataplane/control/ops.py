"""Control-plane operations parsed from ``simple_switch_CLI`` command files, as plain dataclasses.

Names are kept as written (full names or unique suffixes, resolved by the switch); values are
ints wherever the syntax determines them. ``source`` is ``(file, line)`` for error messages.
"""
from __future__ import annotations

from dataclasses import field, replace

from dataplane.control.config_errors import ConfigError
from dataplane.control.keys import KeySpec, RangeKey, TernaryKey
from dataplane.records import record

Source = tuple[str, int]
_NOWHERE: Source = ("<input>", 0)


@record(frozen=True, slots=True, kw_only=True)
class Op:
    """Base of every operation; carries where it was written."""

    source: Source = field(default=_NOWHERE, compare=False)

    @property
    def line(self) -> int:
        """The line the operation was written on (0 if unknown)."""
        return self.source[1]


@record(frozen=True, slots=True, kw_only=True)
class TableAdd(Op):
    """``table_add T A K1 K2 ... => P1 P2 ... [priority]``; priority is smallest-wins (BMv2)."""

    table: str
    action: str
    keys: list[KeySpec]
    params: list[int]
    priority: int | None = None

    def with_priority_expected(self, expected: bool) -> "TableAdd":
        """Re-split the trailing priority once the table's match kind is known.

        The parser takes the last token after ``=>`` as the priority only when a key is written
        ternary (``&&&``) or range (``->``), since that is all the syntax tells. BMv2 decides from
        the table's match type, so the switch calls this: ``expected`` True moves the last
        param to the priority, False moves a parsed priority back to the params.
        """
        if expected and self.priority is None:
            if not self.params:
                raise ConfigError(f"table '{self.table}' needs a priority after the action parameters",
                                  *self.source)
            return replace(self, params=self.params[:-1], priority=self.params[-1])
        if not expected and self.priority is not None:
            return replace(self, params=[*self.params, self.priority], priority=None)
        return self

    @property
    def needs_priority_syntactically(self) -> bool:
        """True if some key is written in a ternary or range form."""
        return any(isinstance(k, (TernaryKey, RangeKey)) for k in self.keys)


@record(frozen=True, slots=True, kw_only=True)
class SetDefault(Op):
    """``table_set_default T A P1 P2 ...``."""

    table: str
    action: str
    params: list[int]


@record(frozen=True, slots=True, kw_only=True)
class TableResetDefault(Op):
    """``table_reset_default T``: back to the program's default action."""

    table: str


@record(frozen=True, slots=True, kw_only=True)
class TableModify(Op):
    """``table_modify T A HANDLE [=>] P1 ...``: new action data for an existing entry."""

    table: str
    action: str
    handle: int
    params: list[int]


@record(frozen=True, slots=True, kw_only=True)
class TableDelete(Op):
    """``table_delete T HANDLE``."""

    table: str
    handle: int


@record(frozen=True, slots=True, kw_only=True)
class TableClear(Op):
    """``table_clear T``: remove every entry, keep the default action."""

    table: str


@record(frozen=True, slots=True, kw_only=True)
class McGroupCreate(Op):
    """``mc_mgrp_create GROUP``."""

    group: int


@record(frozen=True, slots=True, kw_only=True)
class McGroupDestroy(Op):
    """``mc_mgrp_destroy GROUP``."""

    group: int


@record(frozen=True, slots=True, kw_only=True)
class McNodeCreate(Op):
    """``mc_node_create RID PORT... [| LAG...]``; BMv2 hands out node handles 0, 1, 2, ..."""

    rid: int
    ports: list[int]
    lags: list[int] = field(default_factory=list)


@record(frozen=True, slots=True, kw_only=True)
class McNodeUpdate(Op):
    """``mc_node_update HANDLE PORT... [| LAG...]``."""

    handle: int
    ports: list[int]
    lags: list[int] = field(default_factory=list)


@record(frozen=True, slots=True, kw_only=True)
class McNodeAssociate(Op):
    """``mc_node_associate GROUP HANDLE``."""

    group: int
    handle: int


@record(frozen=True, slots=True, kw_only=True)
class McNodeDissociate(Op):
    """``mc_node_dissociate GROUP HANDLE``."""

    group: int
    handle: int


@record(frozen=True, slots=True, kw_only=True)
class McNodeDestroy(Op):
    """``mc_node_destroy HANDLE``."""

    handle: int


@record(frozen=True, slots=True, kw_only=True)
class MirroringAdd(Op):
    """``mirroring_add SESSION PORT``: clones of ``session`` leave on ``port``."""

    session: int
    port: int


@record(frozen=True, slots=True, kw_only=True)
class MirroringAddMc(Op):
    """``mirroring_add_mc SESSION GROUP``: clones of ``session`` go to a multicast group."""

    session: int
    group: int


@record(frozen=True, slots=True, kw_only=True)
class MirroringDelete(Op):
    """``mirroring_delete SESSION``."""

    session: int


@record(frozen=True, slots=True, kw_only=True)
class MirroringGet(Op):
    """``mirroring_get SESSION``. Changes nothing."""

    session: int


@record(frozen=True, slots=True, kw_only=True)
class RegisterRead(Op):
    """``register_read R [I]``; no index reads the whole array. Changes nothing."""

    register: str
    index: int | None


@record(frozen=True, slots=True, kw_only=True)
class RegisterWrite(Op):
    """``register_write R I V``."""

    register: str
    index: int
    value: int


@record(frozen=True, slots=True, kw_only=True)
class RegisterReset(Op):
    """``register_reset R``: every cell to 0."""

    register: str


@record(frozen=True, slots=True, kw_only=True)
class CounterRead(Op):
    """``counter_read C I``; for a direct counter I is the entry handle. Changes nothing."""

    counter: str
    index: int


@record(frozen=True, slots=True, kw_only=True)
class CounterWrite(Op):
    """``counter_write C I PACKETS BYTES``."""

    counter: str
    index: int
    packets: int
    bytes: int


@record(frozen=True, slots=True, kw_only=True)
class CounterReset(Op):
    """``counter_reset C``."""

    counter: str


@record(frozen=True, slots=True, kw_only=True)
class MeterGetRates(Op):
    """``meter_get_rates M I``. Changes nothing."""

    meter: str
    index: int


@record(frozen=True, slots=True, kw_only=True)
class MeterSetRates(Op):
    """``meter_set_rates M I R1:B1 R2:B2``; rates are units per microsecond, bursts in units."""

    meter: str
    index: int
    rates: list[tuple[float, int]]


@record(frozen=True, slots=True, kw_only=True)
class MeterArraySetRates(Op):
    """``meter_array_set_rates M R1:B1 R2:B2``: the same rates for every cell."""

    meter: str
    rates: list[tuple[float, int]]


@record(frozen=True, slots=True, kw_only=True)
class PvsAdd(Op):
    """``pvs_add VS VALUE``: a member of a parser value set (the keys concatenated)."""

    value_set: str
    value: int


@record(frozen=True, slots=True, kw_only=True)
class PvsRemove(Op):
    """``pvs_remove VS VALUE``."""

    value_set: str
    value: int


@record(frozen=True, slots=True, kw_only=True)
class PvsClear(Op):
    """``pvs_clear VS``."""

    value_set: str


@record(frozen=True, slots=True, kw_only=True)
class PvsGet(Op):
    """``pvs_get VS``. Changes nothing."""

    value_set: str
