"""`stepsmith check --fix / --unsafe-fixes / --diff / --show-fixes`: what the command line says
about fixes (the use case is runner/app/fix.py)."""

from __future__ import annotations

import os
import sys
from collections import Counter
from pathlib import Path

from stepsmith.runner.app import fix
from stepsmith.runner.cli.check_command import _display as shown
from stepsmith.runner.cli.check_diff import file_patch

# workflow data reaches these lines (names, messages): print is the one display filter
from stepsmith.runner.display import safe_print as print


def _display(path: Path) -> str:
    return shown(path)


def _display_fix_path(path: str) -> str:
    return _display(Path(path))


def apply_fixes(paths, *, unsafe: bool, show: bool) -> dict | None:
    """Apply the fixes; {(path, code): count} of what was fixed, None on an internal error."""

    try:
        outcome = fix.write(fix.plan(paths, unsafe=unsafe))
    except Exception as exc:
        if os.environ.get("STEPSMITH_DEBUG"):
            raise
        print(f"stepsmith check --fix: internal error: {type(exc).__name__}: {exc}",
              file=sys.stderr)
        return None
    counts: Counter = Counter()
    for fx in outcome.written:
        for f in fx.applied:
            counts[(fx.path, f.code, f.title)] += 1
    for path in outcome.conflicts:
        print(f"{_display_fix_path(path)}: changed on disk while being fixed; not written",
              file=sys.stderr)
    for path, why in outcome.refused:
        print(f"{_display_fix_path(path)}: not written: {why}", file=sys.stderr)
    if show and counts:
        print(f"Fixed {sum(counts.values())} problem(s):")
        last = None
        for (path, code, title), n in sorted(counts.items()):
            if path != last:
                print(f"- {_display_fix_path(path)}:")
                last = path
            print(f"    {n} × {code} ({title})")
    return {(p, c): n for (p, c, _t), n in counts.items()}


def print_diff(paths, *, unsafe: bool) -> int:
    """`--diff`: the fixes as the patch git would write, nothing written (exit 1 when there is
    any). The patch is bytes as they are in the files (a patch with escaped content would not
    apply); names are C-quoted as git quotes them, so no control character reaches a terminal
    through a name."""

    try:
        fixes = fix.plan(paths, unsafe=unsafe)
    except Exception as exc:
        if os.environ.get("STEPSMITH_DEBUG"):
            raise
        print(f"stepsmith check --diff: internal error: {type(exc).__name__}: {exc}",
              file=sys.stderr)
        return 2
    n = 0
    for fx in fixes:
        try:
            mode = 0o100755 if os.stat(fx.path).st_mode & 0o111 else 0o100644
        except OSError:
            mode = 0o100644
        sys.stdout.flush()
        sys.stdout.buffer.write(file_patch(_display_fix_path(fx.path), fx.original, fx.fixed,
                                           mode))
        n += len(fx.applied)
    sys.stdout.flush()
    if n:
        print(f"\nWould fix {n} problem(s).", file=sys.stderr)
    return 1 if fixes else 0
