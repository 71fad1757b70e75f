"""The mutants' per-path state goes with its file (in-process: the real server object and its
handlers; nothing runs)."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types as T
from pygls.uris import from_fs_path
from stepsmith.server.handlers.mutants import _Last, runs_of
from stepsmith.server.server import create_server


@pytest.mark.asyncio
async def test_a_deleted_step_file_or_folder_takes_its_records(tmp_path):
    ls = create_server()
    ls.loop = asyncio.get_running_loop()
    ls.send_raw = lambda method, params: None
    runs = runs_of(ls)
    steps = tmp_path / "wf" / "steps"
    a, b, other = str(steps / "a.py"), str(steps / "b.py"), str(tmp_path / "x" / "c.py")
    for p in (a, b, other):
        runs.last[p] = _Last("text", {"mutants": []})
        runs.watched.add(p)
    watched = ls.protocol.fm.features[T.WORKSPACE_DID_CHANGE_WATCHED_FILES]
    watched(T.DidChangeWatchedFilesParams(changes=[
        T.FileEvent(uri=from_fs_path(a), type=T.FileChangeType.Deleted)]))
    assert set(runs.last) == set(runs.watched) == {b, other}
    watched(T.DidChangeWatchedFilesParams(changes=[
        T.FileEvent(uri=from_fs_path(str(tmp_path / "wf")), type=T.FileChangeType.Deleted)]))
    assert set(runs.last) == set(runs.watched) == {other}
    ls.scheduler.stop()


@pytest.mark.asyncio
async def test_an_untrusted_workspace_runs_no_mutant(tmp_path):
    import dataclasses

    from pygls.exceptions import JsonRpcException

    ls = create_server()
    ls.loop = asyncio.get_running_loop()
    ls.session.settings = dataclasses.replace(ls.session.settings, trusted=False)
    step = tmp_path / "steps" / "a.py"
    handler = ls.protocol.fm.features["stepsmith/mutants"]
    with pytest.raises(JsonRpcException, match="not trusted"):
        await handler({"uri": from_fs_path(str(step))})
    command = ls.protocol.fm.commands["stepsmith.mutants"]
    with pytest.raises(JsonRpcException, match="not trusted"):
        await command(from_fs_path(str(step)))
    assert ls.runs is None  # no runner, no sandbox was started
    ls.scheduler.stop()
