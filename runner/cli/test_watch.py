"""`stepsmith test --watch`: the whole selection first, then after each save only the fixtures
the change affects (runner/cli/watch.py), one screen per run: failures first, then counts."""

from __future__ import annotations

import os
import time
from pathlib import Path

from stepsmith.runner.app import cases as suite
from stepsmith.runner.cli import watch as w
from stepsmith.runner.errors import StepsmithError


def watch(args, req) -> int:
    from stepsmith.runner.cli.console import SafeConsole as Console
    from stepsmith.runner.cli.test_output import print_outcome

    out = Console(highlight=False, soft_wrap=True)
    err = Console(stderr=True, highlight=False, soft_wrap=True)

    def once(changed: set[Path] | None) -> None:
        try:
            selection = suite.select(req)
        except StepsmithError as exc:  # a broken manifest mid-edit: say so, keep watching
            w.clear(out)
            out.print(f"stepsmith test: {exc}", markup=False)
            return
        total = len(selection.selected)
        if changed is not None:
            selection.selected = w.affected(selection.selected, changed)
        w.clear(out)
        stamp = time.strftime("%H:%M:%S")
        if changed is not None:
            names = ", ".join(sorted(_shown(p) for p in changed))
            out.print(f"[{stamp}] changed: {names}; re-running {len(selection.selected)} of "
                      f"{total} fixture(s)", markup=False)
        if selection.selected:
            try:
                outcome = suite.run(selection, req)
            except StepsmithError as exc:
                out.print(f"stepsmith test: {exc}", markup=False)
            else:
                print_outcome(out, err, outcome, args)
        else:
            out.print("no fixture is affected by this change", markup=False)

    return w.loop(list(req.paths), once)


def _shown(path: Path) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return str(path)
    return str(path) if rel.startswith("..") else rel
