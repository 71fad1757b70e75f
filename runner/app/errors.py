"""Why a use case stopped before giving its outcome, typed. The message is the one a user
reads (the CLI prefixes its command's name; the server shows it as is); the CLI maps each kind
to its exit code in ONE place (runner/cli/errors.py)."""

from __future__ import annotations

from typing import Any


class AppError(Exception):
    """A use case refused the request or could not carry it out."""

    def __init__(self, message: str, *, result: dict | None = None,
                 lines: tuple[str, ...] = ()):
        super().__init__(message)
        self.result: Any = result  # a step's result worth showing before the message
        self.lines = lines  # more lines for the user, after the message


class UsageError(AppError):
    """The request cannot be carried out as given (bad path, name, option, case, pin)."""


class SandboxUnavailable(AppError):
    """Nothing runs unsandboxed: the sandbox is not there (or a step came back unavailable)."""


class Refused(AppError):
    """A valid request whose workflow or result refuses it: check problems, forbidden
    inputs, a result that cannot be recorded, a run held by another process."""
