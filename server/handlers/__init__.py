"""One module per LSP method / custom request / command group: snapshot -> service (off the
loop for anything that analyses) -> convert.py. Each module has `register(ls)`; to add a
handler, append its module to HANDLERS (one line)."""

from __future__ import annotations

from importlib import import_module

HANDLERS = [
    "lifecycle",
    "configuration",
    "workspace_events",
    "save",
    "diagnostic",
    "hover",
    "completion",
    "definition",
    "references",
    "rename",
    "document_highlight",
    "document_link",
    "workspace_symbol",
    "ranges",
    "symbols",
    "code_action",
    "inlay_hint",
    "signature_help",
    "code_lens",
    "run_commands",
    "pending",
    "reach",
    "fixtures",
    "status",
    "python",
    "rule",
    "coverage",
    "values",
    "agent_tools",
    "mutants",
]


def register_all(ls) -> None:
    for name in HANDLERS:
        import_module(f"{__name__}.{name}").register(ls)
