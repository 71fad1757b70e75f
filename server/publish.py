"""Publishing (loop thread): a document's accepted problems + its fixture-run results, converted
once (convert.py), pushed with the version they were computed for, or announced by a refresh to
clients that pull. Nothing is published for a version that is not the document's current one.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Protocol

from lsprotocol import types as T
from stepsmith.runner.model.grammar import FIXTURES_DIR
from stepsmith.server.convert import to_diagnostic
from stepsmith.server.workspace import is_manifest_path, path_to_uri, uri_to_path

if TYPE_CHECKING:
    import asyncio
    from concurrent.futures import Executor

    from pygls.protocol import LanguageServerProtocol
    from stepsmith.server.scheduler import Scheduler
    from stepsmith.server.session import Session


class Host(Protocol):
    """What the publisher uses of the server that owns it (server.StepsmithServer), named here
    so the server's parts never import the module that assembles them."""

    session: Session
    scheduler: Scheduler
    runs: Any  # the fixture runs, once started (server/fixture_runs.py)
    services: Executor
    loop: asyncio.AbstractEventLoop | None

    @property
    def protocol(self) -> LanguageServerProtocol: ...

    def send_raw(self, method: str, params: dict) -> None: ...

    def log_exception(self, what: str, exc: BaseException) -> None: ...

FIXTURE_SOURCE = "stepsmith-fixtures"


def analysed(path: str | None, language_id: str = "") -> bool:
    """Documents the server checks (step files, manifests); others only get run results."""
    return bool(path) and (path.endswith(".py") or is_manifest_path(path)) or language_id == "python"


def checked(path: str | None) -> bool:
    """Documents with `check` findings: step files, manifests and fixture files."""
    return analysed(path) or bool(path) and path.endswith(".json") and (
        FIXTURES_DIR in path.split(os.sep)[-3:-1])


class Publisher:
    def __init__(self, ls: Host) -> None:
        self.ls = ls
        self.published: dict[str, tuple] = {}  # uri -> (version, diagnostics) last pushed
        self._refresh_pending = False
        self._lens_refresh_pending = False

    # ------------------------------------------------------------------ documents
    def combined(self, uri: str) -> list[dict] | None:
        """The diagnostics of the document's current version (None: not analysed yet)."""
        ls = self.ls
        res = ls.scheduler.current(uri)
        doc = ls.session.docs.get(uri)
        if res is None or doc is None:
            return None
        enc = ls.session.encoding
        docs = ls.session.settings.ruleDocsUrl
        diags = [to_diagnostic(p, res.lines, enc, rule_docs=docs) for p in res.problems]
        path = uri_to_path(uri)
        if ls.runs is not None and path and analysed(path, doc.language_id):
            diags += [to_diagnostic(p, res.lines, enc, source=FIXTURE_SOURCE, rule_docs=docs)
                      for p in ls.runs.results.problems_of(path)]
        elif ls.runs is not None and path and not ls.session.client.pull:
            # a fixture file's run results, at its top (a pull client has them pushed apart)
            diags += ls.runs.results.fixture_diagnostics(path, res.lines, enc, docs)
        mutants = getattr(ls, "mutant_runs", None)  # survivors, on the text they ran on
        if mutants is not None and path:
            diags += mutants.diagnostics(path, doc.text, res.lines, enc)
        return diags + untaken_diagnostics(res.notes, res.lines, enc)

    def publish(self, uri: str, refresh: bool = False) -> None:
        ls = self.ls
        doc = ls.session.docs.get(uri)
        if doc is None:
            return
        diags = self.combined(uri)
        if diags is None:
            return
        if not diags and uri not in self.published and not checked(uri_to_path(uri)):
            return  # a document stepsmith has nothing to say about, and never had
        if ls.session.client.pull:
            if refresh:
                self.request_refresh()
            return
        key = (doc.version, diags)
        if self.published.get(uri) == key:
            return
        self.published[uri] = key
        ls.send_raw(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,
                    {"uri": uri, "version": doc.version, "diagnostics": diags})

    def forget(self, uri: str) -> None:
        self.published.pop(uri, None)

    def clear(self, uri: str) -> None:
        self.published.pop(uri, None)
        self.ls.send_raw(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, {"uri": uri, "diagnostics": []})

    # ------------------------------------------------------------------ fixture-run results
    def fixture_results(self, path: str) -> None:
        """A path's fixture-run results changed: publish them where they show."""
        ls = self.ls
        uri = ls.session.open_uri(path)
        if analysed(path):
            if uri is not None and ls.scheduler.current(uri) is not None:
                self.publish(uri, refresh=True)  # merged with the document's own diagnostics
            if uri is not None:  # the worker computes the new runs' coverage notes
                ls.scheduler.schedule("doc", uri)
            return  # a step file that is not open: its lens and the notification carry them
        if uri is not None:
            self.open_fixture_file(uri, path)
        else:
            self.closed_fixture_file(path)

    def open_fixture_file(self, uri: str, path: str) -> None:
        """Fixture-run results on an open fixture file. A push client gets them with what
        `check` says of its current version (the scheduler's result; each edit analyses it
        again). A pull client pulls the check's findings and has the results pushed apart,
        positioned on the current text and with its version: documents change only on the
        loop, so version and text agree; each edit republishes."""
        ls = self.ls
        if not ls.session.client.pull:
            if ls.scheduler.current(uri) is not None:
                self.publish(uri)
            return
        if ls.runs is None or not ls.runs.results.problems_of(path):
            return
        with ls.session.docs.lock:
            doc = ls.session.docs.get(uri)
            if doc is None or analysed(path, doc.language_id):
                return
            version, lines = doc.version, tuple(doc.lines)
        diags = ls.runs.results.fixture_diagnostics(path, lines, ls.session.encoding,
                                                    ls.session.settings.ruleDocsUrl)
        key = (version, diags)
        if self.published.get(uri) == key:
            return
        self.published[uri] = key
        ls.send_raw(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,
                    {"uri": uri, "version": version, "diagnostics": diags})

    def closed_fixture_file(self, path: str) -> None:
        """A fixture file that is not open: its results on the disk text, without a version.
        The disk read and the positioning run on the service pool; the loop only sends."""
        from stepsmith.runner.lines import split_lines

        ls = self.ls
        runs = ls.runs
        if runs is None:
            return
        enc = ls.session.encoding

        def compute() -> list[dict]:
            lines = split_lines(ls.session.read_text(path) or "")
            return runs.results.fixture_diagnostics(path, lines, enc,
                                                    ls.session.settings.ruleDocsUrl)

        def send(fut) -> None:
            if fut.cancelled() or fut.exception() is not None:
                if not fut.cancelled():
                    ls.log_exception(f"fixture results of {path}", fut.exception())
                return
            if ls.session.open_uri(path) is None:  # opened meanwhile: the versioned path wins
                ls.send_raw(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,
                            {"uri": path_to_uri(path), "diagnostics": fut.result()})

        ls.loop.run_in_executor(ls.services, compute).add_done_callback(send)

    def has_fixture_results(self, path: str | None) -> bool:
        runs = self.ls.runs
        return bool(runs is not None and path and runs.results.problems_of(path))

    # ------------------------------------------------------------------ refresh requests
    def request_refresh(self) -> None:
        ls = self.ls
        if not ls.session.client.refresh or self._refresh_pending:
            return
        self._refresh_pending = True

        def go():
            self._refresh_pending = False
            try:
                ls.protocol.send_request(T.WORKSPACE_DIAGNOSTIC_REFRESH, None)
            except Exception as exc:
                ls.log_exception("diagnostic refresh failed", exc)

        ls.loop.call_later(0.05, go)

    def inlays_changed(self) -> None:
        """The values of the last runs changed (server/live.py): inlay hints are stale."""
        ls = self.ls
        if ls.session.client.inlay_refresh:
            try:
                ls.protocol.send_request(T.WORKSPACE_INLAY_HINT_REFRESH, None)
            except Exception as exc:
                ls.log_exception("inlay hint refresh failed", exc)

    def lenses_changed(self, delay: float = 0.2) -> None:
        ls = self.ls
        if not ls.session.client.code_lens_refresh or self._lens_refresh_pending:
            return
        self._lens_refresh_pending = True

        def go():
            self._lens_refresh_pending = False
            try:
                ls.protocol.send_request(T.WORKSPACE_CODE_LENS_REFRESH, None)
            except Exception as exc:
                ls.log_exception("code lens refresh failed", exc)

        ls.loop.call_later(delay, go)


def untaken_diagnostics(notes, lines, enc: str) -> list[dict]:
    """"no fixture takes this branch" (Information): the notes the worker computed for the
    version `lines` belong to (Scheduler: DocResult.notes), converted."""
    if not notes:
        return []
    from stepsmith.server.convert import lsp_range

    return [{"range": lsp_range(n.span, lines, enc), "severity": 3, "code": "untaken-branch",
             "source": "stepsmith-coverage", "message": n.message,
             "data": {"arc": list(n.arc)}} for n in notes]
