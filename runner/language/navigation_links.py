"""Document links in a manifest and workspace symbols, over a WorkspaceSnapshot.

Links: every `code:` value goes to its function's `def` line (or the file's start while the
function is missing; no link while the file cannot be read), every step id whose
`fixtures/<id>/` folder exists goes to that folder. Workspace symbols: every step of every
known workflow, filtered by the query as editors filter (its characters in order, any case).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from stepsmith.runner.model import grammar
from stepsmith.runner.problems import Span
from stepsmith.runner.workspace.snapshot import Location, WorkspaceSnapshot


@dataclass(frozen=True)
class Link:
    span: Span  # the linked text in the document
    target: str  # a file or a folder
    line: int | None = None  # 1-based line in the target file (None: a folder / the file)
    tooltip: str = ""


@dataclass(frozen=True)
class StepSymbol:
    name: str  # the step id
    workflow: str  # its workflow's name (the manifest's `workflow:`), else the file name
    location: Location  # the id in the manifest
    code: str  # its `code:` as written ("" when absent)


def document_links(snapshot: WorkspaceSnapshot, path: str) -> list[Link]:
    out: list[Link] = []
    folder = os.path.dirname(path)
    for s in snapshot.steps_of(path):
        if s.code is not None and s.code_span is not None:
            loc = snapshot.function_location(s.target, s.code.function)
            if loc is not None:
                out.append(Link(s.code_span, loc.path, loc.span.line,
                                f"Open {s.code.function} in {s.code.path}"))
        if s.id and s.id_span is not None and grammar.is_step_id(s.id):
            d = os.path.join(folder, grammar.FIXTURES_DIR, s.id)
            if os.path.isdir(d) and not os.path.islink(d):
                out.append(Link(s.id_span, d, None,
                                f"The fixtures of {s.id} ({grammar.FIXTURES_DIR}/{s.id}/)"))
    return sorted(out, key=lambda k: (k.span.line, k.span.column))


def _matches(query: str, name: str) -> bool:
    it = iter(name.lower())
    return all(c in it for c in query.lower())


def _workflow_name(doc, path: str) -> str:
    data = getattr(doc, "data", None)
    name = data.get("workflow") if isinstance(data, dict) else None
    return name if isinstance(name, str) and name else os.path.basename(path)


def workspace_symbols(snapshot: WorkspaceSnapshot, query: str = "",
                      limit: int = 1000) -> list[StepSymbol]:
    out: list[StepSymbol] = []
    for path in sorted(snapshot.index.manifests):
        doc = snapshot.manifest_doc(path)
        if doc is None:
            continue
        wf = _workflow_name(doc, path)
        for s in snapshot.steps_of(path, doc):
            if s.id and _matches(query, s.id):
                out.append(StepSymbol(s.id, wf, Location(path, s.id_span or s.span),
                                      s.code.text if s.code is not None else ""))
                if len(out) >= limit:
                    return out
    return out
