"""Definition and references over a WorkspaceSnapshot: plain Locations (runner coordinates).

A manifest's `code:` value goes to the function's `def`; a step function's `def` line goes to
the steps that run it (their ids), and its references are those steps' `code:` values.
"""

from __future__ import annotations

from stepsmith.runner.model.refs import CodeRef
from stepsmith.runner.problems import Span
from stepsmith.runner.workspace.index import code_target
from stepsmith.runner.workspace.snapshot import Location, WorkspaceSnapshot

from .steps import def_name_at, function_at_line


def _code_at(snapshot: WorkspaceSnapshot, path: str, line: int, column: int) -> CodeRef | None:
    doc = snapshot.manifest_doc(path)
    found = doc.path_at(line, column) if doc is not None else None
    if not found:
        return None
    kp, _ = found
    if len(kp) == 3 and kp[0] == "steps" and kp[2] == "code":
        return CodeRef.parse(getattr(doc.node(kp), "data", None))
    return None


def manifest_definition(snapshot: WorkspaceSnapshot, path: str, line: int,
                        column: int) -> Location | None:
    ref = _code_at(snapshot, path, line, column)
    if ref is None:
        return None
    return snapshot.function_location(code_target(path, ref), ref.function)


def step_definition(snapshot: WorkspaceSnapshot, path: str, line: int, column: int) -> list[Location]:
    """On a step function's `def` line: the ids of the steps that run it."""
    buf = snapshot.buffer(path)
    text = buf.text if buf is not None else snapshot.read_text(path) or ""
    f = def_name_at(text, line, column)
    if f is None:
        return []
    return [snapshot.step_location(s.manifest, s.id) for s in snapshot.steps_using(path, f.name)
            if s.id]


def definition(snapshot: WorkspaceSnapshot, path: str, line: int, column: int) -> list[Location]:
    from stepsmith.runner.workspace.diagnostics import is_manifest_path

    if is_manifest_path(path):
        loc = manifest_definition(snapshot, path, line, column)
        return [loc] if loc else []
    if path.endswith(".py"):
        return step_definition(snapshot, path, line, column)
    return []


def references(snapshot: WorkspaceSnapshot, path: str, line: int, column: int,
               include_declaration: bool = True) -> list[Location]:
    """In a step file: the function at the cursor (its declaration) and every step's `code:`
    naming it. In a manifest: where the `code:` at the cursor points."""
    from stepsmith.runner.workspace.diagnostics import is_manifest_path

    if is_manifest_path(path):
        loc = manifest_definition(snapshot, path, line, column)
        return [loc] if loc else []
    if not path.endswith(".py"):
        return []
    buf = snapshot.buffer(path)
    text = buf.text if buf is not None else snapshot.read_text(path) or ""
    f = def_name_at(text, line, column) or function_at_line(text, line)
    if f is None:
        return []
    out = []
    if include_declaration:
        out.append(Location(path, Span(f.line, f.column, f.line, f.column + len(f.name))))
    out += [Location(s.manifest, s.code_span) for s in snapshot.steps_using(path, f.name)
            if s.code_span is not None]
    return out
