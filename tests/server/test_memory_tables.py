"""Per-path state is evicted when a file is closed and gone (issue 21: RSS grew ~1.5 MiB per
distinct manifest opened, hovered, closed and deleted). In-process: the real server object,
its handlers and its analysis worker; what it would send is collected instead of written."""

from __future__ import annotations

import asyncio

import pytest
import yaml
from lsprotocol import types as T
from pygls.uris import from_fs_path
from stepsmith.server.handlers import documents
from stepsmith.server.server import create_server
from wfkit import demo_manifest


def manifest(steps: int, tag: str) -> str:
    return yaml.safe_dump(demo_manifest(workflow=f"mem-{tag}", steps=[
        {"id": f"s{s}", "explanation": f"Step {s}.", "code": f"steps/s.py:s{s}",
         "inputs": {"a": "sources.numbers", "b": f"steps.missing{s}.output"}}
        for s in range(steps)]), sort_keys=False)


async def settle(ls) -> None:
    for _ in range(400):
        await asyncio.sleep(0.01)
        if ls.scheduler.idle():
            await asyncio.sleep(0.05)  # results posted to the loop are delivered
            if ls.scheduler.idle():
                return
    raise AssertionError("the analysis worker never became idle")


def per_path_tables(ls) -> dict[str, int]:
    """Every table of the server keyed by a document or a path (what must not grow)."""
    s, sc, pub = ls.session, ls.scheduler, ls.publisher
    return {"documents": len(s.docs.uris()), "path_uris": len(s.path_uris), "parses": len(s.parses),
            "index manifests": len(s.model.manifests), "results": len(sc.results),
            "fingerprints": len(sc.fingerprints), "attempted": len(sc.attempted),
            "waiters": len(sc.waiters), "published": len(pub.published)}


@pytest.mark.asyncio
async def test_tables_are_empty_after_close_and_delete(tmp_path):
    ls = create_server()
    ls.loop = asyncio.get_running_loop()
    ls.send_raw = lambda method, params: None
    ls.session.model.set_folders([str(tmp_path)])
    watched = ls.protocol.fm.features[T.WORKSPACE_DID_CHANGE_WATCHED_FILES]
    hover = ls.protocol.fm.features[T.TEXT_DOCUMENT_HOVER]
    try:
        for i in range(3):
            path = tmp_path / f"w{i}.workflow.yaml"
            text = manifest(40, str(i))
            path.write_text(text)
            uri = from_fs_path(str(path))
            documents.did_open(ls, T.DidOpenTextDocumentParams(
                T.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=text)))
            assert await ls.scheduler.wait_analysed(uri)
            await hover(T.HoverParams(T.TextDocumentIdentifier(uri), T.Position(7, 8)))
            documents.did_close(ls, T.DidCloseTextDocumentParams(T.TextDocumentIdentifier(uri)))
            path.unlink()
            watched(T.DidChangeWatchedFilesParams(
                [T.FileEvent(uri=uri, type=T.FileChangeType.Deleted)]))
            await settle(ls)
        assert per_path_tables(ls) == dict.fromkeys(per_path_tables(ls), 0)
    finally:
        ls.scheduler.stop()
        ls.services.shutdown(wait=False)
