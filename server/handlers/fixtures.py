"""stepsmith/fixtures -> runner.workspace.tables.fixture_listing + each fixture's last result."""

from __future__ import annotations

from stepsmith.server.convert import location_json
from stepsmith.server.handlers.common import param, safe
from stepsmith.server.workspace import norm, path_to_uri, uri_to_path


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

        await ls.wait_workspace_ready()
        uri = param(params, "uri")
        ws = ls.session.snapshot()
        return {"workflows": await ls.off_loop(lambda: listing_json(
            ls, ws, fixture_listing(ws, uri_to_path(uri) if uri else None)))}
