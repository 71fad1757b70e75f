"""textDocument/signatureHelp -> runner.language.signature_help (step files; off the loop)."""

from __future__ import annotations

from lsprotocol import types as T
from stepsmith.server.convert import from_codepoints
from stepsmith.server.handlers.common import safe


def information(sig, active, enc: str) -> T.SignatureInformation:
    def offsets(span):  # label offsets in the negotiated encoding, like positions
        return (from_codepoints(sig.label, span[0], enc), from_codepoints(sig.label, span[1], enc))

    return T.SignatureInformation(
        label=sig.label,
        documentation=T.MarkupContent(kind=T.MarkupKind.PlainText, value=sig.doc) if sig.doc else None,
        parameters=[T.ParameterInformation(label=offsets(p.span), documentation=p.doc or None)
                    for p in sig.parameters],
        active_parameter=active)


def register(ls) -> None:
    @ls.feature(T.TEXT_DOCUMENT_SIGNATURE_HELP,
                T.SignatureHelpOptions(trigger_characters=["(", ","], retrigger_characters=[")"]))
    @safe
    async def signature_help(ls, params: T.SignatureHelpParams):
        from stepsmith.runner.language.signature_help import signature_help as service

        at = ls.session.cursor(params.text_document.uri, params.position)
        if at is None or not at.path or not at.path.endswith(".py"):
            return None
        await ls.wait_workspace_ready()  # a step function's inputs come from its manifests
        ws = ls.session.snapshot()
        found = await ls.off_loop(service, ws, at.path, at.line, at.column)
        if found is None:
            return None
        return T.SignatureHelp(
            signatures=[information(found.signature, found.active_parameter, ls.session.encoding)],
            active_signature=0, active_parameter=found.active_parameter)
