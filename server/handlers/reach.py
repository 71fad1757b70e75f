"""stepsmith/reach -> runner.app.reach.snapshot_report, once the workspace has settled: the
report's JSON (the one shape of `stepsmith reach --format json` and MCP `reach`) plus what an
editor needs, in camelCase as every LSP field: each manifest's `manifestUri`, each step's
`location` and `codeLocation`, and in a trusted workspace what widened since git's HEAD
(server/protocol.py declares the answer)."""

from __future__ import annotations

from stepsmith.server.convert import location_json
from stepsmith.server.handlers.common import param, safe
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


def reach_json(session, ws, report, *, trusted: bool = False) -> dict:
    from stepsmith.runner.workspace.tables import reach_locations

    out = report.to_json()
    for wf, entry in zip(report.workflows, out["workflows"]):
        manifest = str(wf.manifest)
        entry["manifestUri"] = session.open_uri(manifest) or path_to_uri(manifest)
        for step, (loc, code) in zip(entry["steps"], reach_locations(ws, manifest, wf.steps)):
            step["location"] = location_json(session, ws, loc)
            step["codeLocation"] = location_json(session, ws, code) if code is not None else None
        head = since_head(ws, manifest) if trusted and wf.error is None else None
        if head is not None:
            entry["sinceHead"] = head
            by_step: dict[str, list] = {}
            for c in head["changes"]:
                by_step.setdefault(c["step"], []).append(c)
            for step in entry["steps"]:
                step["changesSinceHead"] = by_step.get(step["step_id"], [])
    return out


def register(ls) -> None:
    @ls.feature("stepsmith/reach")
    @safe
    async def reach(ls, params):
        from stepsmith.runner.app.reach import snapshot_report
        from stepsmith.server.workspace import uri_to_path

        trusted = ls.session.settings.trusted
        await ls.wait_workspace_ready()
        uri = param(params, "uri")
        ws = ls.session.snapshot()
        return await ls.off_loop(lambda: reach_json(
            ls.session, ws, snapshot_report(ws, uri_to_path(uri) if uri else None),
            trusted=trusted))
