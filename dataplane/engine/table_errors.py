"""Typed errors of table edits, after BMv2's ``MatchErrorCode``.

Each class has a stable ``code``, BMv2's name for the failure: DUPLICATE_ENTRY,
INVALID_HANDLE, TABLE_FULL, BAD_MATCH_KEY, and ERROR for the rest. The control-plane
API (``control.switch``) passes the code on in its ``ControlPlaneError``.
"""
from __future__ import annotations

from dataplane.errors import DataplaneError


class TableError(DataplaneError):
    """A control-plane edit of a match table was refused, or a table was declared badly."""

    code = "ERROR"


class DuplicateEntryError(TableError):
    """An entry with the same match key (and, in a priority table, the same priority) exists."""

    code = "DUPLICATE_ENTRY"


class EntryNotFoundError(TableError):
    """No entry has this handle (never issued, or already deleted)."""

    code = "INVALID_HANDLE"


class TableFullError(TableError):
    """The table already holds its maximum number of entries."""

    code = "TABLE_FULL"


class BadKeyError(TableError):
    """A match key does not fit the table's key layout (arity, form, or a value too wide)."""

    code = "BAD_MATCH_KEY"
