"""The one mapping from stepsmith's typed errors (runner/errors.py) to exit codes and stderr
lines."""

from __future__ import annotations

import sys

# workflow data reaches these lines (names, messages): print is the one display filter
from stepsmith.runner.display import safe_print as print
from stepsmith.runner.errors import (
    Refused,
    SandboxUnavailable,
    StepsmithError,
    UsageError,
)

EXIT_CODES: dict[type[StepsmithError], int] = {UsageError: 2, SandboxUnavailable: 2, Refused: 1}


def exit_code(exc: StepsmithError) -> int:
    for kind, code in EXIT_CODES.items():
        if isinstance(exc, kind):
            return code
    return 2


def report(command: str, exc: StepsmithError) -> int:
    """`stepsmith COMMAND: message` (and its extra lines) on stderr; the exit code."""
    print(f"stepsmith {command}: {exc}", file=sys.stderr)
    for line in exc.lines:
        print(line, file=sys.stderr)
    return exit_code(exc)
