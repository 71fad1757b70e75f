"""textDocument/diagnostic (pull): the accepted result of the document's current version."""

from __future__ import annotations

from lsprotocol import types as T
from pygls.exceptions import JsonRpcException
from stepsmith.server.convert import structured_diagnostics


def register(ls) -> None:
    @ls.feature(T.TEXT_DOCUMENT_DIAGNOSTIC,
                T.DiagnosticOptions(identifier="stepsmith", inter_file_dependencies=True,
                                    workspace_diagnostics=False))
    async def diagnostic(ls, params: T.DocumentDiagnosticParams):
        uri = params.text_document.uri
        if uri not in ls.session.docs:
            return T.RelatedFullDocumentDiagnosticReport(items=[])
        ok = await ls.scheduler.wait_analysed(uri)
        diags = ls.publisher.combined(uri) if ok else None
        if diags is None:
            raise JsonRpcException(message="document changed; retrigger",
                                   code=T.LSPErrorCodes.ServerCancelled.value,
                                   data={"retriggerRequest": True})
        result_id = f"{ls.session.docs.version(uri)}:{hash(repr(diags)) & 0xFFFFFFFF:x}"
        if params.previous_result_id == result_id:
            return T.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
        return T.RelatedFullDocumentDiagnosticReport(items=structured_diagnostics(diags),
                                                     result_id=result_id)
