"""The whole-workflow check: manifest + code files + signatures + the step validator.

`check_workflow(manifest_path, read_text=None)` reads the manifest and every step file it names
(through `read_text`, so the language server can supply unsaved buffers), and returns problems
keyed by path: every file it looked at has an entry, possibly empty, so an editor can clear old
diagnostics. Parsed step files and validator results are cached by content hash.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from stepsmith.runner import safeio
from stepsmith.runner.fix_safety import vet
from stepsmith.runner.model.grammar import (
    is_manifest_name,  # noqa: F401  (defined there; still importable here)
)
from stepsmith.runner.model.refs import CodeRef
from stepsmith.runner.problems import Problem, Severity, Span
from stepsmith.runner.pythons import PythonNotFound
from stepsmith.runner.pythons.checker import grammar_known, validate
from stepsmith.runner.pythons.pins import Pin
from stepsmith.runner.rules.manifest_rules import rationale
from stepsmith.runner.validator import StepUse

from .crossref import did_you_mean, replace_fix, sub_span
from .parse import ManifestDoc, parse_manifest
from .signature import _check_signature, _def_reporter
from .stepfiles import _digest, _read_step_from_disk, parse_step_file
from .yamlpos import MAX_MANIFEST_CHARS, YMap, YScalar, YSeq


def _validate(text: str | bytes, python: str, uses: tuple, interpreter) -> list[Problem]:
    """The validator as the pinned interpreter sees it (itself memoised per top-level
    statement: the one cache; through a helper of that interpreter when it is not this
    process's minor version, runner/pythons/checker.py), with only the fixes that keep the
    file meaning what it meant (judged on the whole file)."""
    return vet(text, validate(text, python=python, uses=list(uses), interpreter=interpreter))


# ------------------------------------------------------------------------------ the check


@dataclass
class WorkflowCheck:
    manifest: ManifestDoc
    problems: dict[Path, list[Problem]] = field(default_factory=dict)
    step_files: dict[Path, list] = field(default_factory=dict)  # path -> [StepUse]
    #: the interpreter the pin names here (pythons.Interpreter); None when it is not
    #: installed (SM501 says so) or nobody asked (no `python_for`)
    interpreter: object = None

    @property
    def all_problems(self) -> list[Problem]:
        return [p for ps in self.problems.values() for p in ps]

    @property
    def ok(self) -> bool:
        return not any(self.problems.values())


def _read_disk(path: Path) -> str | None:
    try:
        data = safeio.read_bytes(path, root=path.parent, cap=safeio.STEP_FILE_CAP)
    except OSError:
        return None
    # UnicodeDecodeError is handled by the caller; a BOM is encoding, not text
    return data.removeprefix(b"\xef\xbb\xbf").decode("utf-8")


def _decode_error_problem(data: bytes, exc: UnicodeDecodeError, path: str, code: str) -> Problem:
    prefix = data[: exc.start].decode("utf-8", "replace")
    line = prefix.count("\n") + 1
    col = len(prefix) - (prefix.rfind("\n") + 1)
    return Problem(
        code=code,
        message=f"file is not UTF-8 text (invalid byte 0x{data[exc.start]:02x} at line {line})",
        span=Span(line, col, line, col + 1),
        path=path,
        rationale=rationale(code) if code.startswith("SM") else "",
    )


def read_manifest_text(path: Path) -> tuple[str | None, list[Problem]]:
    """Read a manifest from disk: (text, problems). Oversized/undecodable files -> problems."""

    p = str(path)
    try:
        # a regular file inside its own folder, read with a hard cap whatever st_size says
        # (`ln -s /dev/zero workflow.yaml` has size 0 and never ends)
        data = safeio.read_bytes(path, root=path.parent, cap=4 * MAX_MANIFEST_CHARS)
    except safeio.TooLarge:
        return None, [Problem(code="SM007", message="manifest is too large; the limit is "
                              f"{MAX_MANIFEST_CHARS // (1024 * 1024)} MiB",
                              span=Span(1, 0, 1, 1), path=p, rationale=rationale("SM007"))]
    except OSError as exc:
        return None, [Problem(code="SM006", message=f"cannot read manifest: {exc.strerror or exc}",
                              span=Span(1, 0, 1, 1), path=p, rationale=rationale("SM006"))]
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError as exc:
        return None, [_decode_error_problem(data, exc, p, "SM008")]


def check_workflow(
    manifest_path: Path, read_text: Callable[[Path], str | None] | None = None,
    validate_steps: bool = True, *, known: list[Problem] | None = None,
    python_for: Callable[[str], object] | None = None,
) -> WorkflowCheck:
    """Check one workflow: the manifest, its cross references, its code files and signatures,
    and every step file with the validator (using each file's `uses` from the manifest).
    `validate_steps=False` (the editor, runner/workspace/diagnostics.py, which validates each
    open step file itself): step files get an empty entry, their uses are still collected.
    `known`: the manifest's own problems, when its text is known unchanged (parse_manifest).
    `python_for(pin)`: the interpreter of the `python:` pin (pythons.resolve; raises
    PythonNotFound, reported as SM501 at the pin): step files are validated with its grammar.
    Without it they are validated by this process, as for a pin of its own version."""
    manifest_path = Path(manifest_path)
    mpath = str(manifest_path)
    text = read_text(manifest_path) if read_text is not None else None
    pre: list[Problem] = []
    if text is None:
        text, pre = read_manifest_text(manifest_path)
    if text is None:
        doc = ManifestDoc("", mpath, None, None, pre)
        return WorkflowCheck(doc, {manifest_path: pre}, {})
    doc = parse_manifest(text, mpath, known=known)
    mprobs = list(doc.problems)
    result = WorkflowCheck(doc, {manifest_path: mprobs}, {})
    root = doc.root
    if not isinstance(root, YMap):
        return result

    def add(code, message, span, step=None, data=None, severity=Severity.ERROR):
        mprobs.append(Problem(code=code, message=message, span=span, path=mpath, step=step,
                              rationale=rationale(code), data=data or {}, severity=severity))

    python = root.data.get("python") if isinstance(root.data.get("python"), str) else "3.11"
    checkable = _pinned_interpreter(result, doc, python, python_for, add)
    steps = root.get("steps")
    if not isinstance(steps, YSeq):
        mprobs.sort(key=lambda p: (p.span.line, p.span.column, p.code))
        return result
    folder = manifest_path.parent
    try:
        folder_real = folder.resolve()
    except OSError:
        folder_real = folder.absolute()
    folder_prefix = str(folder_real).rstrip(os.sep) + os.sep
    resolved: dict[str, tuple[Path, bool]] = {}  # normalised code path -> (path, inside)
    texts: dict[Path, tuple] = {}  # path -> (text, digest, raw bytes if not UTF-8)
    uses: dict[Path, list] = {}

    def read_step(path: Path) -> tuple[str | None, str | None, bytes | None]:
        """(text, digest, raw bytes when not UTF-8); (None, None, None) when unreadable."""
        if path in texts:
            return texts[path]
        t = read_text(path) if read_text is not None else None
        if t is not None:
            entry = (t, _digest(t), None)
        else:
            entry = _read_step_from_disk(path, folder_real)
        texts[path] = entry
        return entry

    undecodable: dict[Path, bytes] = {}
    def_problems: dict[Path, list[Problem]] = {}  # SM204/SM205 shown on the `def` line too
    declared_keys = _declared_effect_keys(root)
    for step in steps.items:
        if not isinstance(step, YMap):
            continue
        idn = step.get("id")
        sid = idn.data if isinstance(idn, YScalar) and isinstance(idn.data, str) else None
        cpair = step.pair("code")
        if cpair is None or not isinstance(cpair.value, YScalar) or not isinstance(cpair.value.data, str):
            continue
        cnode = cpair.value
        ref = CodeRef.parse(cnode.data)
        if ref is None:
            continue  # the schema reports the shape
        file_part, func = ref.path, ref.function
        file_span = sub_span(cnode, 0, len(file_part))
        func_span = sub_span(cnode, ref.function_start, len(cnode.data))
        # --- path safety
        path_error = ref.path_error()
        if path_error is not None:
            add("SM202", path_error, file_span, sid)
            continue
        norm = ref.normalised
        fpath, inside = resolved.get(norm, (None, None))
        if fpath is None:
            fpath = folder / norm
            try:
                real = os.path.realpath(fpath)
                inside = real.startswith(folder_prefix)
            except (OSError, ValueError):
                inside = False
            resolved[norm] = (fpath, inside)
        if not inside:
            add("SM202", f"code path {file_part!r} resolves outside the workflow folder "
                "(through a symbolic link)", file_span, sid)
            continue
        if not file_part.endswith(".py"):
            continue  # schema reports it
        t, d, decode_problem = read_step(fpath)
        if t is None and decode_problem is None:
            if fpath.is_dir():
                add("SM201", f"code file {file_part!r} is a folder, not a file", file_span, sid)
            else:
                near = _near_step_files(folder, norm)
                # relative to the workflow folder: the same words from any cwd (the server's)
                add("SM201", f"code file {file_part!r} does not exist (looked in "
                    f"{_in_folder(fpath, folder)})" + did_you_mean(norm, near), file_span, sid,
                    replace_fix(norm, near, file_span) if file_span != cnode.span else None)
            continue
        net_node = step.get("network")
        network = net_node.data if isinstance(net_node, YScalar) and net_node.data in ("none", "public_egress") else "none"
        uses.setdefault(fpath, [])
        if sid is not None:
            uses[fpath].append(StepUse(sid, func, network, _step_effects(step, declared_keys)))
        if decode_problem is not None:
            undecodable[fpath] = decode_problem
            continue
        parsed = parse_step_file(t, d)
        if not parsed.ok:
            continue  # SS001 from the validator says why
        sig = parsed.functions.get(func)
        if sig is None:
            add("SM203", f"{file_part} has no top-level function '{func}'"
                + did_you_mean(func, parsed.functions), func_span, sid,
                replace_fix(func, parsed.functions, func_span) if func_span != cnode.span else None)
            continue
        _check_signature(step, sig, file_part, func_span, cpair, sid, add,
                         _def_reporter(def_problems, fpath, t, sig, sid, manifest_path),
                         fix_context=(text, root))

    # step files: the validator with each file's uses
    interp = result.interpreter
    for fpath, file_uses in uses.items():
        if not validate_steps or not checkable:
            probs = []
        elif fpath in undecodable:
            probs = _validate(undecodable[fpath], python, tuple(file_uses), interp)
        else:
            probs = _validate(texts[fpath][0], python, tuple(file_uses), interp)
        sp = str(fpath)
        probs = sorted([*probs, *def_problems.get(fpath, ())], key=Problem.sort_key)
        result.problems[fpath] = [dataclasses.replace(p, path=sp) for p in probs]
        result.step_files[fpath] = file_uses
    mprobs.sort(key=lambda p: (p.span.line, p.span.column, p.code))
    return result


def _pinned_interpreter(result: WorkflowCheck, doc: ManifestDoc, python: str, python_for,
                       add) -> bool:
    """Sets `result.interpreter` from the pin; SM501 at the pin when there is none. Whether
    step files can be validated: without the pinned interpreter only when this process's
    grammar is the pin's or newer (the parser's `feature_version` then reads the older one;
    a newer grammar it does not know, and the manifest's SM501 says why)."""

    pin = Pin.parse(python)
    if python_for is None or pin is None:
        return True

    try:
        result.interpreter = python_for(python)
        return True
    except PythonNotFound as exc:
        add("SM501", exc.message, doc.locate(("python",)) or Span(1, 0, 1, 1))

    return grammar_known(python)


def _near_step_files(folder: Path, norm: str, limit: int = 500) -> list[str]:
    """`.py` files beside the missing one (relative, `/`-separated), for a did-you-mean."""
    parent = (folder / norm).parent
    rel_parent = os.path.dirname(norm)
    try:
        names = sorted(e.name for e in os.scandir(parent) if e.name.endswith(".py")
                       and e.is_file())[:limit]
    except OSError:
        return []
    return [f"{rel_parent}/{n}" if rel_parent else n for n in names]


def _in_folder(p: Path, folder) -> str:
    try:
        return os.path.relpath(p, folder)
    except ValueError:
        return str(p)


def _declared_effect_keys(root: YMap) -> dict[str, str | None]:
    """{effect name: key field} of the workflow's `effects` map (only well-formed entries)."""
    effects = root.get("effects")
    out: dict[str, str | None] = {}
    if isinstance(effects, YMap):
        for pair in effects.pairs:
            key = pair.value.get("key") if isinstance(pair.value, YMap) else None
            out[pair.name] = key.data if isinstance(key, YScalar) and isinstance(key.data, str) \
                else None
    return out


def _step_effects(step: YMap, declared: dict[str, str | None]) -> dict | None:
    """The step's effects as {name: key field} for the validator's SS6xx rules: {} when it
    declares none, None when its `effects` is malformed (the schema reports it). Names the
    workflow does not declare are left out (SM103 reports them; emitting one is SS601)."""
    node = step.get("effects")
    if step.pair("effects") is None:
        return {}
    if not isinstance(node, YSeq):
        return None
    out = {}
    for item in node.items:
        if not isinstance(item, YScalar) or not isinstance(item.data, str):
            return None
        if item.data in declared:
            out[item.data] = declared[item.data]
    return out
