"""The one error hierarchy: why stepsmith stopped before giving an answer, typed by what the
user can do about it. Each error is raised where it is known (the store refuses a row, the
settings file is malformed, a pin names no interpreter) with the message a user reads, and is
mapped once at each edge: exit codes in runner/cli/errors.py, the language server's
`handlers/common.safe`, MCP's `answered`. Nothing converts one of these into another.

A lower layer's own error subclasses one kind (store.StoreError is a Refused), so an edge
never needs to know it.
"""

from __future__ import annotations

from typing import Any


class StepsmithError(Exception):
    """A request stepsmith refused or could not carry out (never a bug of ours)."""

    def __init__(self, message: str = "", *, result: dict | None = None,
                 lines: tuple[str, ...] = ()):
        super().__init__(message)
        self.result: Any = result  # a step's result worth showing before the message
        self.lines = lines  # more lines for the user, after the message


class UsageError(StepsmithError):
    """The request cannot be carried out as given: a bad path, name, option, selection, case,
    settings file, or a pin no interpreter here answers. The CLI exits 2."""


class InvokeError(UsageError):
    """A step cannot be invoked as asked: bad inputs, a missing step or credential, an
    unreadable step file. Raised where it is known; a fixture run reports it as the case's
    error, a command as a usage error."""


class Refused(StepsmithError):
    """A valid request its workflow, store or result refuses: check problems, forbidden
    inputs, a result that cannot be recorded, a store row of another request or runtime, a
    run held by another process. The CLI exits 1."""


class SandboxUnavailable(StepsmithError):
    """Nothing runs unsandboxed: the sandbox is not there, or a step came back unavailable.
    The CLI exits 2."""
