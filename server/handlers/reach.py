"""stepsmith/reach -> runner.workspace.tables.reach_table, once the workspace has settled."""

from __future__ import annotations

from stepsmith.server.convert import location_json
from stepsmith.server.handlers.common import safe, workspace_table
from stepsmith.server.workspace import path_to_uri


def reach_json(session, ws, tables) -> list[dict]:
    from stepsmith.runner.reach import REACH_SENTENCE

    out = []
    for wf in tables:
        entry = {"manifestUri": session.open_uri(wf.manifest) or path_to_uri(wf.manifest),
                 "workflow": wf.workflow, "sentence": REACH_SENTENCE, "steps": [
                     {"id": row.step_id, "function": row.function, "network": row.network,
                      "connections": list(row.connections), "sources": list(row.sources),
                      "effects": list(row.effects), "explanation": row.explanation,
                      "reachesNothing": row.reaches_nothing,
                      "location": location_json(session, ws, loc),
                      "codeLocation": location_json(session, ws, code) if code is not None else None}
                     for row, loc, code in wf.steps]}
        if wf.error:
            entry["error"] = wf.error
        out.append(entry)
    return out


def register(ls) -> None:
    @ls.feature("stepsmith/reach")
    @safe
    async def reach(ls, params):
        from stepsmith.runner.workspace.tables import reach_table

        return await workspace_table(ls, params, reach_table,
                                     lambda ws, table: reach_json(ls.session, ws, table))
