"""diagnostics(snapshot, path) -> list[Problem]: the one place that runs the workflow check
for an editor and validates step files.

Each step file is validated once per text, by the one incremental validator
(`runner.validator.validate`, which memoises top-level statements by their text): the
manifest check here does NOT validate step files (its result would only be dropped); a step
file's own problems come from validating its current text with the context (python, uses) of
the manifests naming it, plus the cross-file problems their last checks found in it.
"""

from __future__ import annotations

from pathlib import Path

from stepsmith.runner.model.grammar import is_manifest_name
from stepsmith.runner.problems import Problem, Span

from .index import norm
from .snapshot import Buffer, WorkspaceSnapshot


def is_manifest_path(path: str | None) -> bool:
    if not path:
        return False
    return is_manifest_name(Path(path).name)


def is_step_path(path: str | None, language_id: str = "") -> bool:
    return (path is not None and path.endswith(".py")) or language_id == "python"


def too_large(size: int, limit: int, code: str) -> Problem:
    return Problem(code=code, message=f"file is too large for live checking ({size:,} characters; "
                   f"the limit is stepsmith.maxFileSize = {limit:,})", span=Span(1, 0, 1, 1))


def check_manifest(snapshot: WorkspaceSnapshot, path: str):
    """The whole-workflow check of one manifest on the snapshot's buffers (step files not
    validated: see the module doc). A WorkflowCheck; None when its buffer is too large."""
    buf = snapshot.buffer(path)
    if buf is not None and len(buf.text) > snapshot.max_file_size:
        return None
    from .workflow_check import workflow_check

    return workflow_check(path, snapshot.buffer_text, validate_steps=False)


def manifest_problems(check, path: str) -> list[Problem]:
    return [p for f, probs in check.problems.items() if norm(f) == path for p in probs]


def step_problems(snapshot: WorkspaceSnapshot, path: str | None, buf: Buffer) -> list[Problem]:
    """A step file's problems on the text of `buf`."""
    limit = snapshot.max_file_size
    if len(buf.text) > limit:
        return [too_large(len(buf.text), limit, "SS002")]
    from stepsmith.runner.pythons.checker import grammar_known, validate

    # the fixes are the rule's candidates: judged on the whole file only when asked for
    # (language/actions.code_actions), never per keystroke
    python, uses = snapshot.step_context(path)
    interp = snapshot.index.step_interpreter(path)
    if interp is None and uses and not grammar_known(python):
        # its pin's Python is not installed (the manifest's SM501 says so): this process's
        # grammar is older than the pin's, so its verdict would be wrong
        return snapshot.index.crossfile(path)
    return (validate(buf.text, python=python, uses=uses, interpreter=interp)
            + snapshot.index.crossfile(path))


def diagnostics(snapshot: WorkspaceSnapshot, path: str, buf: Buffer | None = None) -> list[Problem]:
    """The problems of `path` (a manifest or a step file; others have none) on its buffer,
    or on the disk text when it is not open."""
    buf = buf or snapshot.buffer(path)
    if is_manifest_path(path):
        if buf is not None and len(buf.text) > snapshot.max_file_size:
            return [too_large(len(buf.text), snapshot.max_file_size, "SM007")]
        return manifest_problems(check_manifest(snapshot, path), path)
    if buf is None:
        text = snapshot.read_text(path)
        if text is None:
            return []
        buf = Buffer(text, None, ())
    if is_step_path(path, buf.language_id):
        return step_problems(snapshot, path, buf)
    return []
