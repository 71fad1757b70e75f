"""Audit replay: the code :func:`stepsmith.runner.app.replay.replay_run` re-executes with
``stored_code=True`` (``stepsmith replay RUN --stored-code``): the source the store kept for
each accepted step, in the same harness with the same pinned time and seed, diffed against
the accepted result. Unlike the default replay this works after any edit of the checkout: the
code that ran is the code that is replayed.

Also :func:`code_change` — the unified diff between the stored source of a step and today's,
which the default replay shows when a step's code changed.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from stepsmith.runner.app.workflow import StepCode
from stepsmith.runner.errors import InvokeError
from stepsmith.runner.store.canonical import code_hash
from stepsmith.runner.store.db import ResultStore
from stepsmith.runner.validator import StepUse


def code_change(store: ResultStore, stored_hash: str, current: str, rel: str) -> str:
    """Unified diff stored source -> current source ("" when the store lacks it)."""
    kept = store.code_source(stored_hash)
    if kept is None:
        return ""
    filename, source = kept
    return "".join(difflib.unified_diff(
        source.splitlines(keepends=True), current.splitlines(keepends=True),
        fromfile=f"accepted {filename or rel}", tofile=f"current {rel}", n=2))


def stored_step_code(store: ResultStore, step, request: dict) -> StepCode:
    """The step's code as the store kept it for this request; InvokeError when it cannot be
    trusted to be that code."""
    kept = store.code_source(request.get("code_hash") or "")
    if kept is None:
        raise InvokeError("the store kept no source for this step's code hash")
    filename, source = kept
    if code_hash(source) != request.get("code_hash"):
        raise InvokeError("the stored source does not hash to the request's code hash "
                          "(tampered store?)")

    uses = [StepUse(step.id, request.get("function") or "", step.network)]
    return StepCode(step=step, path=Path(filename), rel=filename, source=source,
                    function=str(request.get("function") or ""), uses=uses,
                    raw=source.encode("utf-8"))
