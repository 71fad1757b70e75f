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
            out += mutant_lenses(ls, at.path, ws.read_text(at.path), lens.step_id, rng)
        return out


def mutant_lenses(ls, path: str, text: str | None, step_id: str, rng) -> list:
    """"2 mutants survive" on a step whose mutants ran on this text (handlers/mutants.py)."""
    runs = getattr(ls, "mutant_runs", None)
    alive = runs.survivors(path, step_id, text) if runs is not None else None
    if alive is None:
        return []
    title = f"{alive} mutant{'s' if alive != 1 else ''} survive{'s' if alive == 1 else ''}" \
        if alive else "✓ every mutant noticed"
    return [T.CodeLens(range=rng, command=T.Command(
        title=title, command="stepsmith.mutants",
        arguments=[ls.session.open_uri(path) or path_to_uri(path)]))]
