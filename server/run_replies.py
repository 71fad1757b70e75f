"""The replies of the editor's run commands: a fixture's result, and the record command's."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from stepsmith.server.workspace import path_to_uri, uri_to_path


def result_json(cr) -> dict:
    """One case result as the editor receives it (stepsmith/fixtureResults)."""
    from stepsmith.runner.fixtures.compare import unified_diff

    case = cr.case
    diff_lines = [str(d) for d in cr.differences]
    for label, expected, actual in cr.big or []:
        diff_lines.append(unified_diff(expected, actual, label))
    message = "; ".join(cr.messages) if cr.messages else ""
    if cr.outcome == "failed" and not message:
        message = f"{len(cr.differences)} difference(s)" if cr.differences else "output differs"
    return {"fixture": case.case, "uri": path_to_uri(str(case.path)) if case.path else "",
            "status": cr.outcome, "message": message,
            "diff": "\n".join(diff_lines) if cr.outcome == "failed" else "",
            "stdout": (cr.result or {}).get("stdout") or "",
            "outcome": cr.outcome, "messages": list(cr.messages),
            "differences": [d.to_json() for d in cr.differences]}


def record_reply(mp: str | None, step_id: str, name: str, inputs: Any, at: str | None,
                 sandbox_status: Callable[[], tuple[bool, str]]) -> dict:
    """The record use case (runner.app.record, as `stepsmith record`); refusals as results."""
    from stepsmith.runner.app.errors import AppError
    from stepsmith.runner.app.record import RecordRequest, record_fixture
    from stepsmith.runner.app.step import StepRequest

    def err(msg: str, uri: str = "") -> dict:
        return {"fixture": name, "uri": uri, "status": "error", "message": msg, "diff": "",
                "outcome": "error", "messages": [msg], "differences": [], "stdout": ""}

    if not mp:
        return err("manifestUri is not a file URI")
    if isinstance(inputs, str):
        try:
            inputs = json.loads(inputs)
        except json.JSONDecodeError as exc:
            return err(f"inputsJson is not JSON: {exc}")
    if not isinstance(inputs, dict):
        return err("inputsJson must be a JSON object (parameter -> value)")
    uri = path_to_uri(str(Path(mp).parent / "fixtures" / step_id / f"{name}.json"))
    ok, reason = sandbox_status()
    if not ok:
        return err(f"sandbox unavailable: {reason}")
    try:
        rec = record_fixture(RecordRequest(StepRequest(mp, step_id, inputs, at=at or None), name))
    except AppError as exc:
        return err(" ".join([str(exc), *exc.lines]), uri if Path(uri_to_path(uri)).exists() else "")
    msg = f"recorded fixtures/{step_id}/{name}.json (expected status {rec.status})"
    return {"fixture": name, "uri": path_to_uri(str(rec.target)), "status": "recorded",
            "message": msg, "diff": "", "outcome": "recorded", "messages": [msg],
            "differences": [], "stdout": rec.result.get("stdout") or ""}
