"""The read-only tools of `stepsmith mcp`: check, reach, explain_rule, schema, dialect.

Plain use cases over the workspace `Scope`, returning typed (pydantic) outputs: the MCP server
publishes their JSON Schemas as the tools' output schemas, so an agent gets structure, never
text to parse. Positions follow the project's contract: `line` 1-based, `column` 0-based in
code points, end exclusive.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, Field
from stepsmith.runner import rules
from stepsmith.runner.app.check import check as check_paths
from stepsmith.runner.app.check import with_fixes
from stepsmith.runner.app.reach import reach_report
from stepsmith.runner.app.shapes import ReachReport
from stepsmith.runner.language.fixall import SAFE_KINDS
from stepsmith.runner.language.modules_api import members, modules
from stepsmith.runner.rules.pages import page
from stepsmith.runner.schema import schema_text
from stepsmith.runner.validator import policy

from .schema_view import authoring_view
from .scope import Scope


class Edit(BaseModel):
    path: str = Field(description="file to edit, relative to the first workspace root")
    line: int = Field(description="1-based")
    column: int = Field(description="0-based, in code points")
    end_line: int
    end_column: int = Field(description="exclusive")
    new_text: str


class FixOut(BaseModel):
    title: str
    kind: str = Field(description="e.g. remove-import, add-seed, replace")
    safe: bool = Field(description="keeps the program meaning what it meant (applied by "
                       "`stepsmith check --fix`); otherwise a guess or a change of behaviour")
    preferred: bool = Field(description="the first fix, and safe")
    edits: list[Edit]


class ProblemOut(BaseModel):
    code: str
    message: str
    severity: str
    path: str
    line: int = Field(description="1-based")
    column: int = Field(description="0-based, in code points")
    end_line: int
    end_column: int = Field(description="exclusive")
    step: str | None = Field(description="the step function (step files) or step id (manifests)")
    rationale: str
    fixes: list[FixOut] = Field(description="best first; none for problems with no safe or "
                                "likely fix")


class CheckOutput(BaseModel):
    clean: bool
    files_checked: int
    problems: list[ProblemOut]


class RuleOut(BaseModel):
    code: str
    name: str
    summary: str
    rationale: str
    security: bool
    refused_example: str
    accepted_fix: str
    page: str = Field(description="the rule's documentation page (Markdown), whole: the same "
                      "text as docs/rules/<CODE>.md")


def _fix_out(scope: Scope, action, safe_kinds) -> FixOut:
    edits = [Edit(path=scope.shown(path), line=e.span.line, column=e.span.column,
                  end_line=e.span.end_line, end_column=e.span.end_column, new_text=e.new_text)
             for path, es in action.changes.items() for e in es]
    return FixOut(title=action.title, kind=action.fix_kind, safe=action.fix_kind in safe_kinds,
                  preferred=action.preferred, edits=edits)


def check(scope: Scope, paths: list[str] | None = None) -> CheckOutput:
    """Every problem of the workflows (and step files) under `paths`, with fixes: the
    CheckReport of runner/app/check.py (stale fixtures included), read anew (an agent edits
    fast: no cache)."""

    wanted: list[str | None] = list(paths) if paths else [None]
    targets = [scope.resolve(p) for p in wanted]
    report = check_paths([str(t) for t in targets], cache=False)
    problems = []
    for found in with_fixes(report):
        pr, s = found.problem, found.problem.span
        problems.append(ProblemOut(
            code=pr.code, message=pr.message, severity=str(pr.severity.value),
            path=scope.shown(found.path), line=s.line, column=s.column, end_line=s.end_line,
            end_column=s.end_column, step=pr.step, rationale=pr.rationale,
            fixes=[_fix_out(scope, a, SAFE_KINDS) for a in found.fixes]))
    return CheckOutput(clean=not problems, files_checked=report.files_checked,
                       problems=problems)


def reach(scope: Scope, path: str | None = None) -> ReachReport:
    """Every step of every workflow under `path`, including those reaching nothing: the one
    report (runner/app/reach.py), paths shown relative to the first root."""

    report = reach_report([scope.resolve(path)])
    return ReachReport.model_validate(report.to_json(scope.shown))


def explain_rule(code: str) -> RuleOut:
    try:
        r = rules.get(code.strip().upper())
    except rules.UnknownRule as exc:
        hint = f"; did you mean {', '.join(exc.suggestions)}?" if exc.suggestions else ""
        raise ValueError(f"no rule {code!r}{hint}") from None
    # the page's text, not a link: a file:// URL names the server's disk, not the reader's
    return RuleOut(code=r.code, name=r.name, summary=r.summary, rationale=r.rationale,
                   security=r.security, refused_example=r.example or "",
                   accepted_fix=r.fix or "", page=page(r))


def full_schema() -> dict:
    """The JSON Schema of workflow.yaml, exactly (the `stepsmith://schema` resource)."""

    return json.loads(schema_text())


def schema() -> dict:
    """The authoring view of the schema (schema_view.py), generated from the full one."""

    return authoring_view(full_schema())


def dialect() -> dict:
    """The step dialect: allowed modules and the public names of each, as steps may use them."""

    return {
        "allowed_modules": list(modules()),
        "egress_only_modules": sorted(policy.NETWORK_MODULES),
        "names": {m: [{"name": x.name, "kind": x.kind, "signature": x.signature}
                      for x in members(m)] for m in modules()},
    }


def workflow_dir_of(scope: Scope, workflow: str) -> Path:
    """The workflow folder (or manifest) an agent names, inside the roots."""
    return scope.resolve(workflow)
