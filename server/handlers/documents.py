"""Document sync (called by the protocol, not registered): mutate the session on the loop,
then schedule analysis; fixture-run results follow a fixture file's text."""

from __future__ import annotations

import logging
import os

from lsprotocol import types as T
from stepsmith.server.publish import analysed
from stepsmith.server.workspace import is_manifest_path, uri_to_path

log = logging.getLogger(__name__)


def did_open(ls, params: T.DidOpenTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.publisher.forget(uri)
    ls.scheduler.forget(uri)
    path = ls.session.open(params)
    ls.scheduler.schedule("doc", uri, front=True)
    if path:  # a step file open in a buffer now wins over disk for the manifests naming it
        for m in ls.session.model.manifests_using(path):
            ls.scheduler.schedule("manifest", m.path)
        if ls.publisher.has_fixture_results(path):  # a fixture file: its results, versioned
            ls.publisher.open_fixture_file(uri, path)


def did_change(ls, params: T.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    if ls.session.change(params) is None:
        log.warning("didChange for a document that is not open: %s", uri)
        return
    ls.scheduler.schedule("doc", uri, front=True)
    if ls.session.settings.runOnType:
        ls.runner.on_type(uri)
    path = uri_to_path(uri)
    if ls.publisher.has_fixture_results(path):  # keep them on the new text, with its version
        ls.publisher.open_fixture_file(uri, path)


def did_close(ls, params: T.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    path = ls.session.close(uri)
    ls.scheduler.forget(uri)  # its waiting requests answer now
    ls.publisher.clear(uri)
    if path and not analysed(path) and ls.publisher.has_fixture_results(path):
        ls.publisher.closed_fixture_file(path)  # run results belong to the file: disk text
    if not path:
        return
    for m in ls.session.model.manifests_using(path):  # the disk version applies again
        ls.scheduler.schedule("manifest", m.path)
    if is_manifest_path(path):
        if os.path.exists(path):
            ls.scheduler.schedule("manifest", path)
        else:  # an unsaved new manifest: forget it, and what it said about step files
            ls.forget_manifest(path)
