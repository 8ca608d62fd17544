"""Typed errors of table edits, after BMv2's ``MatchErrorCode``.

Each class has a stable ``code``: DUPLICATE_ENTRY, INVALID_HANDLE, TABLE_FULL and
BAD_MATCH_KEY in BMv2 become ``duplicate_entry``, ``entry_not_found``,
``table_full`` and ``bad_key`` here.
"""
from __future__ import annotations

from dataplane.errors import DataplaneError


class TableError(DataplaneError):
    """A control-plane edit of a match table was refused, or a table was declared badly."""

    code = "table"


class DuplicateEntryError(TableError):
    """An entry with the same match key (and, in a priority table, the same priority) exists."""

    code = "duplicate_entry"


class EntryNotFoundError(TableError):
    """No entry has this handle (never issued, or already deleted)."""

    code = "entry_not_found"


class TableFullError(TableError):
    """The table already holds its maximum number of entries."""

    code = "table_full"


class BadKeyError(TableError):
    """A match key does not fit the table's key layout (arity, form, or a value too wide)."""

    code = "bad_key"
