"""textDocument/completion -> runner.language.completion.complete (off the loop) -> convert."""

from __future__ import annotations

from lsprotocol import types as T
from stepsmith.server.convert import to_completion_item
from stepsmith.server.handlers.common import safe

# `"`/`'`: `connections["`, `effects.emit("`; `[`/`{`/`,`: flow collections; `-`: list items
TRIGGERS = [":", " ", ".", "/", '"', "'", "[", "{", ",", "-"]


def register(ls) -> None:
    @ls.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=TRIGGERS))
    @safe
    async def completion(ls, params: T.CompletionParams):
        from stepsmith.runner.language.completion import complete

        at = ls.session.cursor(params.text_document.uri, params.position)
        if at is None or not at.path:
            return None
        ws = ls.session.snapshot()
        items = await ls.off_loop(complete, ws, at.path, at.line, at.column)
        lines = ws.buffer(at.path).lines  # the text the service read: its ranges are on it
        return {"isIncomplete": False,
                "items": [to_completion_item(i, lines, ls.session.encoding,
                                             ls.session.client.snippets) for i in items]}
