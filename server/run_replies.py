"""The replies of the editor's run commands: one typed `RunReply` per fixture (a run's result,
a refusal, a recording), converted to the wire form (server/PROTOCOL.md, `FixtureResult` in
vscode-extension/src/protocol.ts) only when sent.

Each reply carries `target`, the range where the fixture's result is shown (its top-level
`"expected"` key, by the one JSON locator; the file's start without one), in the negotiated
encoding on the text the editor shows, so no client searches the fixture's text.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stepsmith.server.workspace import norm, path_to_uri, uri_to_path


@dataclass
class RunReply:
    fixture: str  # the case name
    uri: str  # the fixture file ("" when there is none)
    outcome: str  # passed | failed | error | recorded
    messages: list[str] = field(default_factory=list)  # the runner's lines for an error
    differences: list[dict] = field(default_factory=list)  # compare.Difference.to_json()
    message: str = ""  # `messages` (or the differences' count) rendered for display
    diff: str = ""  # the differences rendered (failed only)
    stdout: str = ""
    target: dict | None = None  # LSP range in the fixture file (`fixture_target`)
    pending_uri: str | None = None  # set when the run wrote a pending change
    # a fixture the workflow's check problems keep from running: their own diagnostics say
    # it, so it gets none of its own (one cause, one report)
    blocked: bool = False

    @property
    def status(self) -> str:
        return self.outcome

    def to_json(self) -> dict:
        d = {"fixture": self.fixture, "uri": self.uri, "status": self.outcome,
             "outcome": self.outcome, "message": self.message, "messages": list(self.messages),
             "diff": self.diff, "differences": list(self.differences), "stdout": self.stdout,
             "target": self.target}
        if self.pending_uri:
            d["pendingUri"] = self.pending_uri
        return d


def wire(replies: list[RunReply]) -> list[dict]:
    return [r.to_json() for r in replies]


def error_reply(fixture: str, uri: str, message: str, target: dict | None = None) -> RunReply:
    return RunReply(fixture, uri, "error", [message], message=message, target=target)


def fixture_target(snapshot, path: str | None, encoding: str) -> dict | None:
    """(off the loop: reads the file) The LSP range where `path`'s result is shown, on the
    text the editor shows (its open buffer, else the file); None without a file."""
    from stepsmith.runner.fixtures.jsonpos import result_target
    from stepsmith.runner.lines import split_lines
    from stepsmith.server.convert import lsp_range

    if not path:
        return None
    text = snapshot.read_text(norm(path)) or ""
    return lsp_range(result_target(text), split_lines(text), encoding)


def unavailable_replies(snapshot, fixtures, reason: str, encoding: str) -> list[RunReply]:
    """(off the loop) Every fixture's reply when the sandbox is unavailable."""
    return [error_reply(p.stem, path_to_uri(str(p)), f"sandbox unavailable: {reason}",
                        fixture_target(snapshot, str(p), encoding)) for p in fixtures]


def result_reply(cr, target: dict | None) -> RunReply:
    """One case result (runner.app.suite.CaseResult) as a reply."""
    from stepsmith.runner.fixtures.compare import unified_diff

    case = cr.case
    diff_lines = [str(d) for d in cr.differences]
    for label, expected, actual in cr.big or []:
        diff_lines.append(unified_diff(expected, actual, label))
    message = "; ".join(cr.messages) if cr.messages else ""
    if cr.outcome == "failed" and not message:
        message = f"{len(cr.differences)} difference(s)" if cr.differences else "output differs"
    return RunReply(case.case, path_to_uri(str(case.path)) if case.path else "", cr.outcome,
                    list(cr.messages), [d.to_json() for d in cr.differences], message,
                    "\n".join(diff_lines) if cr.outcome == "failed" else "",
                    (cr.result or {}).get("stdout") or "", target, blocked=case.blocked)


def record_reply(mp: str | None, step_id: str, name: str, inputs: Any, at: str | None,
                 sandbox_status: Callable[[], tuple[bool, str]],
                 target: Callable[[str], dict | None]) -> RunReply:
    """The record use case (runner.app.record, as `stepsmith record`); refusals as results.
    `target(path)`: `fixture_target` of a fixture file."""
    from stepsmith.runner.app.record import RecordRequest, record_fixture
    from stepsmith.runner.app.step import StepRequest
    from stepsmith.runner.errors import StepsmithError

    if not mp:
        return error_reply(name, "", "manifestUri is not a file URI")
    if isinstance(inputs, str):
        try:
            inputs = json.loads(inputs)
        except json.JSONDecodeError as exc:
            return error_reply(name, "", f"inputsJson is not JSON: {exc}")
    if not isinstance(inputs, dict):
        return error_reply(name, "", "inputsJson must be a JSON object (parameter -> value)")
    uri = path_to_uri(str(Path(mp).parent / "fixtures" / step_id / f"{name}.json"))
    ok, reason = sandbox_status()
    if not ok:
        return error_reply(name, "", f"sandbox unavailable: {reason}")
    try:
        rec = record_fixture(RecordRequest(StepRequest(mp, step_id, inputs, at=at or None), name))
    except StepsmithError as exc:
        there = Path(uri_to_path(uri)).exists()
        return error_reply(name, uri if there else "", " ".join([str(exc), *exc.lines]),
                           target(uri_to_path(uri)) if there else None)
    msg = f"recorded fixtures/{step_id}/{name}.json (expected status {rec.status})"
    return RunReply(name, path_to_uri(str(rec.target)), "recorded", [msg], message=msg,
                    stdout=rec.result.get("stdout") or "", target=target(str(rec.target)))
