"""hover(snapshot, path, line, column) -> Hover | None: the one hover service, pure, over a
WorkspaceSnapshot, in runner coordinates (1-based line, code-point column).

Manifests: schema descriptions, step inputs, rule cards (manifest.manifest_hover). Step files:
the rule card of a violation under the cursor (the caller passes the document's problems), the
pinned-clock note, and on a step function's `def` the reach card of every step using it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from stepsmith.runner.language.cards import pinned_time_card, reach_card, rule_card
from stepsmith.runner.language.manifest_services import manifest_hover
from stepsmith.runner.language.steps import clock_call_at, def_name_at, problems_at
from stepsmith.runner.model.refs import CodeRef
from stepsmith.runner.problems import Problem, Span
from stepsmith.runner.reach import reach_rows
from stepsmith.runner.workspace.diagnostics import is_manifest_path
from stepsmith.runner.workspace.index import code_target, norm

from . import markdown as md

MAX_HOVER_CHARS = 2_000_000  # beyond stepsmith.maxFileSize nothing is analysed: no cards


@dataclass(frozen=True)
class Hover:
    markdown: str
    span: Span | None = None  # what the card is about (None: the word at the cursor)


def _file_uri(path: str) -> str:
    return Path(path).as_uri()


def hover(snapshot, path: str, line: int, column: int, *, problems: Sequence[Problem] = (),
          language_id: str = "", uri_of: Callable[[str], str] = _file_uri) -> Hover | None:
    if is_manifest_path(path):
        return manifest_card(snapshot, path, line, column, uri_of)
    if path.endswith(".py") or language_id == "python":
        return step_card(snapshot, path, line, column, problems)
    return None


def code_link(snapshot, manifest_path: str, code: str, uri_of: Callable[[str], str] = _file_uri) -> str | None:
    """`steps/x.py:func` of a manifest -> a link target for hover Markdown: the file's URI with
    `#L<line>` of the function's `def` (VS Code opens it there), or None if there is no file."""

    ref = CodeRef.parse(code)
    if ref is None or not ref.path.endswith(".py"):
        return None
    loc = snapshot.function_location(code_target(manifest_path, ref), ref.function)
    if loc is None:
        return None
    turi = uri_of(loc.path).replace("(", "%28").replace(")", "%29")
    found = any(f.name == ref.function for f in snapshot.functions(loc.path))
    return f"{turi}#L{loc.span.line}" if found else turi


def manifest_card(snapshot, path: str, line: int, column: int,
                  uri_of: Callable[[str], str] = _file_uri) -> Hover | None:
    doc = snapshot.manifest_doc(path)
    if doc is None:
        return None
    found = manifest_hover(doc, line, column,
                           code_link=lambda code: code_link(snapshot, path, code, uri_of))
    at = doc.path_at(line, column)
    if at is not None and tuple(at[0]) == ("python",):
        entry = snapshot.index.get(path)
        report = entry.python_report() if entry is not None else None
        if report is not None:
            card = python_card(report)
            span = found[1] if found else doc.locate(("python",), at[1])
            return Hover(found[0] + "\n\n---\n\n" + card if found else card, span)
    return Hover(found[0], found[1]) if found else None


def python_card(report) -> str:
    """Which interpreter the workflow's steps are checked and run on (pythons.report)."""
    i = report.interpreter
    if report.pin is None:
        return "**Python**: not pinned"
    if i is None:
        return f"{md.code('python: ' + report.pin)}: {md.plain(report.problem or 'not installed')}"
    running = " (the interpreter stepsmith runs on)" if i.running else ""
    pin = 'python: "' + report.pin + '"'
    return (f"**Steps run on** {md.code('Python ' + i.release)} at {md.code(i.exe)}{running}; "
            f"pinned by {md.code(pin)}")


def step_card(snapshot, path: str, line: int, column: int,
              problems: Sequence[Problem] = ()) -> Hover | None:
    text = snapshot.read_text(path)
    if text is None or len(text) > snapshot.max_file_size:
        return None
    parts: list[str] = []
    span = None
    for p in problems_at(list(problems), line, column):  # violations under the cursor
        card = rule_card(p.code, p.message)
        if card and card not in parts:
            parts.append(card)
            span = span or p.span
    call = clock_call_at(text, line, column)
    if call:
        parts.append(pinned_time_card(call))
    f = def_name_at(text, line, column)
    if f is not None:
        cards = reach_cards(snapshot, path, f.name, reach_card)
        parts += cards
        report = _step_file_python(snapshot, path)
        if cards and report is not None:
            parts.append(python_card(report))
    if not parts:
        return None
    return Hover("\n\n---\n\n".join(parts), span)


def _step_file_python(snapshot, path: str):
    """The pin report of the first manifest naming the step file (what it is checked with)."""

    for entry in snapshot.index.manifests_using(norm(path)):
        report = entry.python_report()
        if report is not None:
            return report
    return None


def reach_cards(snapshot, path: str, function: str, card) -> list[str]:
    """The reach card of every step (of every manifest) whose code is `path:function`."""

    out = []
    for s in snapshot.steps_using(path, function):
        mdoc = snapshot.manifest_doc(s.manifest)
        if mdoc is None or mdoc.workflow is None:
            out.append(f"Step {md.code(s.id)} — the manifest {md.code(os.path.basename(s.manifest))} has "
                       "errors; fix them to see what this step can reach.")
            continue
        out += [card(row) for row in reach_rows(mdoc.workflow) if row.step_id == s.id]
    return out
