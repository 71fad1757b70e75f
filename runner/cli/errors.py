"""The one mapping from the use cases' typed errors to exit codes and stderr lines."""

from __future__ import annotations

import sys

from stepsmith.runner.app.errors import (
    AppError,
    Refused,
    SandboxUnavailable,
    UsageError,
)

# workflow data reaches these lines (names, messages): print is the one display filter
from stepsmith.runner.display import safe_print as print

EXIT_CODES: dict[type[AppError], int] = {UsageError: 2, SandboxUnavailable: 2, Refused: 1}


def exit_code(exc: AppError) -> int:
    for kind, code in EXIT_CODES.items():
        if isinstance(exc, kind):
            return code
    return 2


def report(command: str, exc: AppError) -> int:
    """`stepsmith COMMAND: message` (and its extra lines) on stderr; the exit code."""
    print(f"stepsmith {command}: {exc}", file=sys.stderr)
    for line in exc.lines:
        print(line, file=sys.stderr)
    return exit_code(exc)
