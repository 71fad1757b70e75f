"""Definition, references and document highlight over a WorkspaceSnapshot: plain Locations
(runner coordinates).

A manifest's `code:` value goes to the function's `def`; a step function's `def` line goes to
the steps that run it (their ids), and its references are those steps' `code:` values. Every
other workflow name (a step id in `id:` or `steps.<id>.output`, a source, a connection alias,
an effect; in step files `connections["alias"]` and `effects.emit("name"`) goes to its
declaration, and its references are every place it is written (navigation_names).
"""

from __future__ import annotations

from stepsmith.runner.model.refs import CodeRef
from stepsmith.runner.problems import Span
from stepsmith.runner.workspace.diagnostics import is_manifest_path
from stepsmith.runner.workspace.index import code_target
from stepsmith.runner.workspace.snapshot import Location, WorkspaceSnapshot

from .navigation_names import Names
from .steps import def_name_at, function_at_line


def _name_declarations(snapshot, path, line, column) -> list[Location] | None:
    names = Names(snapshot)
    found = names.at(path, line, column)
    if found is None or found[0].kind == "function":
        return None
    return [o.location for o in names.occurrences(found[0]) if o.declaration]


def _name_references(snapshot, path, line, column, include_declaration) -> list[Location] | None:
    names = Names(snapshot)
    found = names.at(path, line, column)
    if found is None or found[0].kind == "function":
        return None
    return [o.location for o in names.occurrences(found[0])
            if include_declaration or not o.declaration]


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
    if is_manifest_path(path):
        loc = manifest_definition(snapshot, path, line, column)
        if loc is not None:
            return [loc]
        return _name_declarations(snapshot, path, line, column) or []
    if path.endswith(".py"):
        found = _name_declarations(snapshot, path, line, column)
        return found if found is not None else step_definition(snapshot, path, line, column)
    return []


def references(snapshot: WorkspaceSnapshot, path: str, line: int, column: int,
               include_declaration: bool = True) -> list[Location]:
    """A workflow name: every place it is written. A step function (on its `def`, anywhere in
    its body, or on a `code:` value): its declaration and every step's `code:` naming it."""

    found = _name_references(snapshot, path, line, column, include_declaration)
    if found is not None:
        return found
    if is_manifest_path(path):
        ref = _code_at(snapshot, path, line, column)
        if ref is None:
            return []
        return _function_references(snapshot, code_target(path, ref), ref.function,
                                    include_declaration)
    if not path.endswith(".py"):
        return []
    buf = snapshot.buffer(path)
    text = buf.text if buf is not None else snapshot.read_text(path) or ""
    f = def_name_at(text, line, column) or function_at_line(text, line)
    if f is None:
        return []
    return _function_references(snapshot, path, f.name, include_declaration)


def _function_references(snapshot, path: str, function: str,
                         include_declaration: bool) -> list[Location]:
    f = next((f for f in snapshot.functions(path) if f.name == function), None)
    out = []
    if include_declaration and f is not None:
        out.append(Location(path, Span(f.line, f.column, f.line, f.column + len(f.name))))
    out += [Location(s.manifest, s.code_span) for s in snapshot.steps_using(path, function)
            if s.code_span is not None]
    return out


def document_highlight(snapshot: WorkspaceSnapshot, path: str, line: int,
                       column: int) -> list[tuple[Span, str]]:
    """The name at the cursor in this file: (span, "write") for its declaration, (span,
    "read") for each use."""
    names = Names(snapshot)
    found = names.at(path, line, column, closed=False)
    if found is None:
        return []
    return [(o.location.span, "write" if o.declaration else "read")
            for o in names.occurrences(found[0], only=path)]
