"""symbols(snapshot, path) -> list[Symbol]: a document's outline (manifests: sections, steps,
sources, effects, connections; step files: top-level functions and imports), pure, capped at
MAX_ITEMS symbols like yaml-language-server's `maxItemsComputed` (a 5 MB file stays fast)."""

from __future__ import annotations

from dataclasses import replace

from stepsmith.runner.language.manifest_services import Symbol, manifest_symbols
from stepsmith.runner.language.steps import step_symbols
from stepsmith.runner.workspace.diagnostics import is_manifest_path

MAX_ITEMS = 5000


def symbols(snapshot, path: str, language_id: str = "", max_items: int = MAX_ITEMS) -> list[Symbol]:
    if is_manifest_path(path):
        doc = snapshot.manifest_doc(path)
        found = manifest_symbols(doc) if doc is not None else []
    elif path.endswith(".py") or language_id == "python":
        text = snapshot.read_text(path)
        found = step_symbols(text) if text is not None else []
    else:
        return []
    return _capped(found, [max_items])


def _capped(found: list[Symbol], budget: list[int]) -> list[Symbol]:
    out = []
    for s in found:
        if budget[0] <= 0:
            break
        budget[0] -= 1
        out.append(replace(s, children=_capped(s.children, budget)))
    return out
