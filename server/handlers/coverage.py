"""stepsmith/coverage {uri} -> runner.language.coverage over the last traced fixture runs
(server/live.py), lines and arcs 0-based for the client (PROTOCOL.md)."""

from __future__ import annotations

from stepsmith.server.handlers.common import invalid_params, param, safe
from stepsmith.server.workspace import uri_to_path


def _zero(view: dict) -> dict:
    """Runner lines (1-based) to 0-based LSP lines; an arc that leaves the function ends in
    "exit"."""
    def arc(a):
        return [a[0] - 1, "exit" if a[1] < 0 else a[1] - 1]

    return {"executed": [n - 1 for n in view["executed"]],
            "missing": [n - 1 for n in view["missing"]],
            "takenArcs": [arc(a) for a in view["takenArcs"]],
            "missingArcs": [arc(a) for a in view["missingArcs"]],
            "fixtures": {k: {"lines": [n - 1 for n in f["lines"]],
                             "arcs": [arc(a) for a in f["arcs"]]}
                         for k, f in view["fixtures"].items()},
            "percent": view["percent"], "stale": view["stale"]}


def register(ls) -> None:
    @ls.feature("stepsmith/coverage")
    @safe
    async def coverage(ls, params):
        uri = param(params, "uri")
        path = uri_to_path(uri) if uri else None
        if not path:
            raise invalid_params("stepsmith/coverage needs {uri} of a step file")
        ws = ls.session.snapshot()
        text = ws.read_text(path)
        if text is None or ls.runs is None:
            return {"uri": uri, "coverage": None}
        view = await ls.off_loop(ls.runs.live.coverage, path, text)
        return {"uri": uri, "coverage": _zero(view.to_json()) if view is not None else None}
