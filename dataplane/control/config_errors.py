"""Errors of the control plane: a refused call (``ControlPlaneError``), and errors and warnings
about control-plane and test files (runtime JSON, CLI command files, STF).

They print the way compiler diagnostics do, ``FILE:LINE: error: message``, so a user can jump
to the offending line; line 0 means the position is unknown and is left out.
"""
from __future__ import annotations


from dataplane.errors import DataplaneError
from dataplane.records import record


def _where(file: str, line: int) -> str:
    return f"{file}:{line}" if line else file


class ControlPlaneError(DataplaneError):
    """A control-plane call was refused; the message names what and where."""

    code = "control_plane"


class ConfigError(DataplaneError):
    """A control-plane or test file is malformed; names the file, the line and the offending token."""

    code = "config"

    def __init__(self, message: str, file: str = "<input>", line: int = 0, token: str | None = None):
        self.message = message
        self.file = file
        self.line = line
        self.token = token
        super().__init__(f"{_where(file, line)}: error: {message}")


@record(frozen=True, slots=True)
class ConfigWarning:
    """Something in a file that was accepted but ignored (e.g. a read-only CLI command)."""

    message: str
    file: str = "<input>"
    line: int = 0

    def __str__(self) -> str:
        return f"{_where(self.file, self.line)}: warning: {self.message}"
