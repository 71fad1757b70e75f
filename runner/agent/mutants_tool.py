"""The MCP `mutants` tool: fixture strength for an assistant, so it can strengthen the fixtures
it proposes and say which survivors remain. Offline and sandboxed like `test` (the same use
case as `stepsmith mutants`); writes nothing into the workspace. The output is typed: its
schema is published with the tool."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

from pydantic import BaseModel, Field
from stepsmith.runner.app.mutants import MutantsRequest, run_mutants

from .scope import Scope


class Mutant(BaseModel):
    path: str = Field(description="the step file, relative to the workspace root")
    line: int = Field(description="1-based")
    column: int = Field(description="0-based, in code points")
    end_line: int
    end_column: int = Field(description="exclusive")
    operator: str = Field(description="what kind of change (comparison, arithmetic, ...)")
    original: str
    replacement: str
    status: str = Field(description="killed | survived | timeout (counted as killed) | error")
    killed_by: str | None = Field(description="node id of the first fixture that noticed")
    fixtures_run: int
    duration_ms: float
    steps: list[str] = Field(description="the steps whose code holds the change")
    hint: str = Field(description="for a survivor: the fixture to record so one notices")
    note: str
    cached: int = Field(description="fixture verdicts answered from the cache")


class Summary(BaseModel):
    mutants: int
    killed: int
    survived: int
    timeout: int
    error: int
    seconds: float
    score: float = Field(description="percent of judged mutants some fixture noticed")
    refused: int = Field(description="mutants the dialect validator refused (not run)")
    opted_out: int = Field(description="mutants skipped by `# stepsmith: no-mutate` lines")
    fixture_runs: int
    baseline_runs: int
    blocked: int = Field(description="workflows not mutated: they have check problems")
    cancelled: bool


class OptedOut(BaseModel):
    path: str
    line: int
    text: str
    mutants: int


class MutantsOutput(BaseModel):
    mutants: list[Mutant] = Field(description="survivors first")
    summary: Summary
    opted_out: list[OptedOut]
    notes: list[str] = Field(description="fixtures left out, steps not mutated, and why")


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
