"""The MCP `mutants` tool: fixture strength for an assistant, so it can strengthen the fixtures
it proposes and say which survivors remain. Offline and sandboxed like `test` (the same use
case as `stepsmith mutants`); writes nothing into the workspace. The output is typed: its
schema (runner/app/shapes.py `MutantsReport`, the CLI's JSON) is published with the tool."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

from stepsmith.runner.app.mutants import MutantsRequest, run_mutants
from stepsmith.runner.app.shapes import MutantsReport as MutantsOutput

from .scope import Scope


def mutants(scope: Scope, paths: list[str] | None = None, steps: list[str] | None = None,
            keywords: list[str] | None = None,
            on_progress: Callable[[int, int], None] | None = None,
            stop: threading.Event | None = None) -> MutantsOutput:
    """`stepsmith mutants --format json` for the paths inside the scope, paths shown relative
    to the first root."""
    wanted: list[str | None] = list(paths) if paths else [None]
    resolved = [str(scope.resolve(p)) for p in wanted]
    report = run_mutants(MutantsRequest(paths=resolved, steps=list(steps or []),
                                        keywords=list(keywords or [])),
                         on_progress=on_progress, stop=stop)
    doc = report.to_json()
    root = str(scope.resolve(None))
    for item in doc["mutants"] + doc["opted_out"]:  # shown from the current folder: from root
        item["path"] = os.path.relpath(os.path.abspath(item["path"]), root)
    return MutantsOutput.model_validate(doc)
