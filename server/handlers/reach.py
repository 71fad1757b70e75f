"""stepsmith/reach -> runner.workspace.tables.reach_table, once the workspace has settled."""

from __future__ import annotations

from stepsmith.server.convert import location_json
from stepsmith.server.handlers.common import safe, workspace_table
from stepsmith.server.workspace import path_to_uri


def since_head(ws, manifest: str) -> dict | None:
    """What the manifest (as the editor has it) widens since git's HEAD, or None outside a
    repository. Runs git: a trusted workspace only."""
    from stepsmith.runner.revisions import widened_since

    doc = ws.manifest_doc(manifest)
    if doc is None or doc.workflow is None:
        return None
    found = widened_since(manifest, doc.workflow)
    if found is None:
        return None
    status, changes = found
    return {"status": status, "widens": any(c.widens for c in changes),
            "changes": [c.to_json() for c in changes]}


def reach_json(session, ws, tables, *, trusted: bool = False) -> list[dict]:
    from stepsmith.runner.reach import REACH_SENTENCE

    out = []
    for wf in tables:
        entry = {"manifestUri": session.open_uri(wf.manifest) or path_to_uri(wf.manifest),
                 "workflow": wf.workflow, "sentence": REACH_SENTENCE, "steps": [
                     {"id": row.step_id, "function": row.function, "network": row.network,
                      "connections": list(row.connections), "sources": list(row.sources),
                      "effects": list(row.effects), "effectTargets": dict(row.effect_targets),
                      "explanation": row.explanation,
                      "reachesNothing": row.reaches_nothing,
                      "location": location_json(session, ws, loc),
                      "codeLocation": location_json(session, ws, code) if code is not None else None}
                     for row, loc, code in wf.steps]}
        entry_python = ws.index.get(wf.manifest)
        report = entry_python.python_report() if entry_python is not None else None
        if report is not None:
            from stepsmith.server.handlers.python import python_json

            entry["python"] = python_json(report, entry["manifestUri"])
        if wf.error:
            entry["error"] = wf.error
        head = since_head(ws, wf.manifest) if trusted and not wf.error else None
        if head is not None:
            entry["sinceHead"] = head
            by_step: dict[str, list] = {}
            for c in head["changes"]:
                by_step.setdefault(c["step"], []).append(c)
            for step in entry["steps"]:
                step["changesSinceHead"] = by_step.get(step["id"], [])
        out.append(entry)
    return out


def register(ls) -> None:
    @ls.feature("stepsmith/reach")
    @safe
    async def reach(ls, params):
        from stepsmith.runner.workspace.tables import reach_table

        trusted = ls.session.settings.trusted
        return await workspace_table(ls, params, reach_table, lambda ws, table: reach_json(
            ls.session, ws, table, trusted=trusted))
