"""Pending fixture changes in the editor: `workspace/executeCommand` commands over the same use
case as `stepsmith review` (stepsmith.runner.app.fixture_loop), plus the hook that makes the
editor's saved-code fixture runs write pending changes like `stepsmith test`.

Commands (server/PROTOCOL.md): stepsmith.pending.list, .accept, .reject, .acceptAll,
.rejectAll. In an untrusted workspace every one is refused, like every run.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pygls.exceptions import JsonRpcException
from stepsmith.server.handlers.common import require_trust, safe
from stepsmith.server.workspace import norm, path_to_uri, uri_to_path


def sync_results(case_results, results: list) -> None:
    """After an editor run of saved code: write/drop pending changes as `stepsmith test` does
    and tell the client where each one is (`pendingUri`)."""
    from stepsmith.runner.app import pending

    written, _problems = pending.sync(case_results)
    where = {(c.step_id, c.case): path_to_uri(str(c.path)) for c in written}
    for cr, r in zip(case_results, results):
        uri = where.get((cr.case.step_id, cr.case.case))
        if uri:
            r.pending_uri = uri  # results: server.run_replies.RunReply


def _workflow_dirs(ls) -> list[str]:
    return sorted({str(Path(m.path).parent) for m in ls.session.model.manifests_for(None)})


def shown_name(folders, workflow_dir) -> str:
    """A workflow folder's name for the client: relative to the (innermost) workspace folder
    holding it, its own name when it is one. Never relative to the server's current folder,
    which editors choose (the VS Code extension starts the server in its own folder)."""
    d = Path(workflow_dir)
    best = None
    for f in folders:
        fp = Path(f)
        if (d == fp or fp in d.parents) and (best is None or len(fp.parts) > len(best.parts)):
            best = fp
    return d.name if best is None or best == d else d.relative_to(best).as_posix()


def _item_json(item, manifest_uri: dict[str, str], folders=()) -> dict:
    d: dict[str, Any] = {"id": item.id, "workflow": shown_name(folders, item.workflow_dir),
                         "manifestUri": manifest_uri.get(norm(str(item.workflow_dir)), "")}
    if item.change is None:
        d.update(problem=item.problem.message, pendingUri=path_to_uri(str(item.problem.path)))
        return d
    c = item.change
    raw, _ = c.current()
    d.update(step=c.step_id, case=c.case, fixtureUri=path_to_uri(str(c.fixture_path)),
             pendingUri=path_to_uri(str(c.path)), source=c.source,
             isNew=c.fixture_sha256 is None,
             differences=[x.to_json() for x in c.differences()],
             oldText=raw.decode("utf-8", "replace") if raw is not None else "",
             newText=c.new_text)
    return d


def list_items(ls) -> list:
    from stepsmith.runner.app import fixture_loop

    return fixture_loop.find(_workflow_dirs(ls))


def _selected(items, uris: list[str]) -> list:
    want = {norm(p) for p in (uri_to_path(u) for u in uris) if p}
    return [i for i in items if norm(str((i.change or i.problem).path)) in want]


def _uris(args) -> list[str]:
    a = list(args[0]) if len(args) == 1 and isinstance(args[0], list) else list(args)
    if len(a) == 1 and isinstance(a[0], dict):
        a = list(a[0].get("pendingUris") or [])
    return [str(x) for x in a]


def register(ls) -> None:
    def manifests() -> dict[str, str]:
        out = {}
        for m in ls.session.model.manifests_for(None):
            out.setdefault(norm(str(Path(m.path).parent)), ls.session.open_uri(m.path) or path_to_uri(m.path))
        return out

    async def in_pool(fn, *a):
        return await asyncio.get_running_loop().run_in_executor(ls.runner.pool, fn, *a)

    @ls.command("stepsmith.pending.list")
    @safe
    async def pending_list(ls, *args):
        require_trust(ls)
        await ls.wait_workspace_ready()
        items = await in_pool(list_items, ls)
        mu = manifests()
        folders = tuple(ls.session.model.folders)
        return {"items": await in_pool(lambda: [_item_json(i, mu, folders) for i in items])}

    async def decide(how: str, uris: list[str] | None) -> dict:
        from stepsmith.runner.app import fixture_loop

        require_trust(ls)
        items = await in_pool(list_items, ls)
        chosen = items if uris is None else _selected(items, uris)
        if uris is not None and len(chosen) < len(set(uris)):
            missing = len(set(uris)) - len(chosen)
            raise JsonRpcException(message=f"{missing} of the given pending changes no longer "
                                   "exist (already decided?)", code=-32602)
        fn = fixture_loop.accept if how == "accept" else fixture_loop.reject
        decisions = [await in_pool(fn, i) for i in chosen]
        for d in decisions:  # refresh the fixture's diagnostics and the Test Explorer
            if d.outcome in ("accepted", "already") and d.item.change is not None:
                await ls.runner.run_fixture_command(path_to_uri(str(d.item.change.fixture_path)))
        return {"decisions": [d.to_json() for d in decisions],
                "summary": fixture_loop.summary(decisions)}

    @ls.command("stepsmith.pending.accept")
    @safe
    async def pending_accept(ls, *args):
        return await decide("accept", _uris(args))

    @ls.command("stepsmith.pending.reject")
    @safe
    async def pending_reject(ls, *args):
        return await decide("reject", _uris(args))

    @ls.command("stepsmith.pending.acceptAll")
    @safe
    async def pending_accept_all(ls, *args):
        return await decide("accept", None)

    @ls.command("stepsmith.pending.rejectAll")
    @safe
    async def pending_reject_all(ls, *args):
        return await decide("reject", None)
