"""textDocument/codeLens -> runner.language.lenses (off the loop) + the last run's counts."""

from __future__ import annotations

from lsprotocol import types as T
from stepsmith.runner.problems import Span
from stepsmith.server.convert import lsp_span
from stepsmith.server.handlers.common import safe
from stepsmith.server.workspace import path_to_uri

COMMAND = "stepsmith.runStepFixtures"


def register(ls) -> None:
    @ls.feature(T.TEXT_DOCUMENT_CODE_LENS, T.CodeLensOptions(resolve_provider=False))
    @safe
    async def code_lens(ls, params: T.CodeLensParams):
        from stepsmith.runner.language.lenses import code_lenses

        at = ls.session.cursor(params.text_document.uri, T.Position(0, 0))
        if at is None or not (at.path or "").endswith(".py"):
            return None
        await ls.wait_workspace_ready()  # lenses list the steps that use this file
        ws, enc = ls.session.snapshot(), ls.session.encoding  # the newest text after the wait
        lines = ws.buffer(at.path).lines
        out = []
        for lens in await ls.off_loop(code_lenses, ws, at.path):
            rng = lsp_span(Span(lens.line, 0, lens.line, 0), lines, enc)
            args = [ls.session.open_uri(lens.manifest) or path_to_uri(lens.manifest), lens.step_id]
            out.append(T.CodeLens(range=rng, command=T.Command(title=lens.title, command=COMMAND, arguments=args)))
            run = ls.runs.results.step_run(lens.manifest, lens.step_id) if ls.runs else None
            if run is not None and run.results:
                ok, bad = run.counts
                title = f"✗ {bad} failed" if bad else f"✓ {ok} passed"
                title += " (before your edit)" if ls.runs.live.is_stale(lens.manifest, lens.step_id) else ""
                out.append(T.CodeLens(range=rng, command=T.Command(title=title, command=COMMAND, arguments=args)))
        return out
