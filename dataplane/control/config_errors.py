"""Errors of the control plane: a refused call (``ControlPlaneError``), and errors and warnings
about control-plane and test files (runtime JSON, CLI command files, STF).

They print the way compiler diagnostics do, ``FILE:LINE: error: message``, so a user can jump
to the offending line; line 0 means the position is unknown and is left out.
"""
from __future__ import annotations

from dataplane.errors import DataplaneError
from dataplane.records import record


def _where(file: str, line: int, column: int = 0) -> str:
    if not line:
        return file
    return f"{file}:{line}:{column}" if column else f"{file}:{line}"


def control_plane_code(err: BaseException) -> str | None:
    """The control-plane code an error carries (``ControlPlaneError``, ``TableError``), else None."""
    code = getattr(err, "code", None)
    return code if isinstance(code, str) and code.isupper() else None


class ControlPlaneError(DataplaneError):
    """A control-plane call was refused; the message names what and where. ``code`` is BMv2's
    name for the failure (its ``MatchErrorCode`` and kin: DUPLICATE_ENTRY, INVALID_HANDLE,
    TABLE_FULL, BAD_MATCH_KEY, BAD_ACTION_DATA, INVALID_TABLE_NAME, INVALID_ACTION_NAME,
    DEFAULT_ACTION_IS_CONST), ERROR when none fits; the CLI prints it as ``error [CODE]: ...``."""

    code = "ERROR"

    def __init__(self, message: str, code: str | None = None):
        super().__init__(message)
        if code is not None:
            self.code = code


class ConfigError(DataplaneError):
    """A control-plane or test file is malformed; names the file, the line and the offending token."""

    code = "config"

    def __init__(self, message: str, file: str = "<input>", line: int = 0, token: str | None = None,
                 code: str | None = None, column: int = 0):
        """``code``: the control-plane error code of a refused operation in the file (see
        ``ControlPlaneError``); it prints as ``FILE:LINE: error [CODE]: message``. ``column``,
        when known, follows the line."""
        self.message = message
        self.file = file
        self.line = line
        self.token = token
        self.column = column
        if code is not None:
            self.code = code
        label = f"error [{code}]" if code is not None else "error"
        super().__init__(f"{_where(file, line, column)}: {label}: {message}")


@record(frozen=True, slots=True)
class ConfigWarning:
    """Something in a file that was accepted but ignored (e.g. a read-only CLI command)."""

    message: str
    file: str = "<input>"
    line: int = 0

    def __str__(self) -> str:
        return f"{_where(self.file, self.line)}: warning: {self.message}"


def read_text_file(path, what: str = "file") -> str:
    """The UTF-8 text of ``path``; a missing, unreadable or non-UTF-8 file is a located ``ConfigError``.

    Every reader of a user's file (topology, entries, STF, traffic, events) goes through here so
    that a binary file or a directory gives ``FILE:LINE: error: ...``, never a traceback.
    """
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise ConfigError(f"cannot read {what}: {e.strerror or e}", str(path)) from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw.count(b"\n", 0, e.start) + 1
        col = e.start - (raw.rfind(b"\n", 0, e.start) + 1) + 1
        raise ConfigError(f"column {col}: the {what} is not UTF-8 text (byte 0x{raw[e.start]:02x})",
                          str(path), line) from None


def yaml_error(err: Exception, file: str, what: str = "invalid YAML", text: str | None = None) -> ConfigError:
    """pyyaml's error (several lines: a context, its place, the problem, its place) as one
    located ``FILE:LINE:COL: error: WHAT: PROBLEM (CONTEXT at line L, column C)``.

    Duck-typed on pyyaml's marks so this module needs no yaml import; ``text`` locates a
    reader error (a NUL byte, a control character), which pyyaml gives as a character offset.
    """
    problem = getattr(err, "problem", None)
    mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
    if problem is None:                                   # ReaderError and other plain errors
        problem = str(err).splitlines()[0] if str(err) else type(err).__name__
        position = getattr(err, "position", None)
        line = col = 0
        if text is not None and isinstance(position, int):
            line = text.count("\n", 0, position) + 1
            col = position - (text.rfind("\n", 0, position) + 1) + 1
        return ConfigError(f"{what}: {problem}", file, line, column=col)
    context = getattr(err, "context", None)
    context_mark = getattr(err, "context_mark", None)
    message = f"{what}: {problem}"
    if context:
        if context_mark is not None and context_mark is not mark:
            context += f" at line {context_mark.line + 1}, column {context_mark.column + 1}"
        message += f" ({context})"
    if mark is None:
        return ConfigError(message, file)
    return ConfigError(message, file, mark.line + 1, column=mark.column + 1)
