"""stepsmith/python {uri} -> which interpreter the document's workflow is checked and run on
(the VS Code status bar shows it): a manifest's own pin, a step file's first workflow's."""

from __future__ import annotations

from stepsmith.server.handlers.common import param, safe


def python_json(report, manifest_uri: str) -> dict:
    """pythons.report.WorkflowPython as the client reads it (PROTOCOL.md)."""
    i = report.interpreter
    return {"manifestUri": manifest_uri, "pin": report.pin,
            "version": i.release if i is not None else None,
            "path": i.exe if i is not None else None,
            "build": i.build if i is not None else None,
            "running": bool(i.running) if i is not None else False,
            "problem": report.problem, "summary": report.summary()}


def register(ls) -> None:
    @ls.feature("stepsmith/python")
    @safe
    async def python(ls, params):
        from stepsmith.server.workspace import (
            is_manifest_path,
            path_to_uri,
            uri_to_path,
        )

        uri = param(params, "uri")
        path = uri_to_path(uri) if isinstance(uri, str) else None
        if not path:
            return None
        await ls.wait_workspace_ready()
        index = ls.session.snapshot().index
        if is_manifest_path(path):
            entries = [index.get(path)]
        else:
            entries = index.manifests_using(path)
        for entry in entries:
            report = entry.python_report() if entry is not None else None
            if report is not None:
                return python_json(report, ls.session.open_uri(entry.path)
                                   or path_to_uri(entry.path))
        return None
