"""stepsmith/fixtures -> runner.workspace.tables.fixture_listing + each fixture's last result."""

from __future__ import annotations

from stepsmith.server.convert import location_json
from stepsmith.server.handlers.common import safe, workspace_table
from stepsmith.server.workspace import norm, path_to_uri


def listing_json(ls, ws, listing) -> list[dict]:
    session, results = ls.session, ls.runs.results if ls.runs is not None else None
    out = []
    for wf in listing:
        steps = []
        for st in wf.steps:
            loc = location_json(session, ws, st.location)
            steps.append({"id": st.id, "uri": loc["uri"], "range": loc["range"], "fixtures": [
                {"name": p.stem, "uri": path_to_uri(str(p)),
                 "lastResult": results.status_of(norm(p)) if results else None}
                for p in st.fixtures]})
        out.append({"manifestUri": session.open_uri(wf.manifest) or path_to_uri(wf.manifest),
                    "workflow": wf.workflow, "steps": steps})
    return out


def register(ls) -> None:
    @ls.feature("stepsmith/fixtures")
    @safe
    async def fixtures(ls, params):
        from stepsmith.runner.workspace.tables import fixture_listing

        return await workspace_table(ls, params, fixture_listing,
                                     lambda ws, table: listing_json(ls, ws, table))
