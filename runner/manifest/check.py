"""The whole-workflow check: manifest + code files + signatures + the step validator.

`check_workflow(manifest_path, read_text=None)` reads the manifest and every step file it names
(through `read_text`, so the language server can supply unsaved buffers), and returns problems
keyed by path: every file it looked at has an entry, possibly empty, so an editor can clear old
diagnostics. Parsed step files and validator results are cached by content hash.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from stepsmith.runner import safeio
from stepsmith.runner.model.grammar import (
    is_manifest_name,  # noqa: F401  (defined there; still importable here)
)
from stepsmith.runner.model.refs import CodeRef
from stepsmith.runner.problems import Problem, Span
from stepsmith.runner.rules.manifest_rules import rationale

from . import fixedits
from .crossref import RESERVED_INPUTS, closest, did_you_mean, replace_fix, sub_span
from .parse import ManifestDoc, parse_manifest
from .yamlpos import YMap, YScalar, YSeq

MAX_STEP_FILE_BYTES = 2 * 1024 * 1024  # larger files are left to the validator's own cap




# ---------------------------------------------------------------------- step file parsing


@dataclass(frozen=True)
class FunctionSig:
    name: str
    line: int
    params: tuple[str, ...]  # positional-or-keyword and keyword-only names, in order
    problems: tuple[str, ...]  # unsupported signature features, described


@dataclass(frozen=True)
class ParsedStepFile:
    functions: dict  # name -> FunctionSig (top-level def / async def only)
    ok: bool  # False when the file did not parse (the validator reports why)


_CACHE_LOCK = threading.Lock()
_PARSE_CACHE: OrderedDict[str, ParsedStepFile] = OrderedDict()
_CACHE_SIZE = 512


def _cache_get(cache: OrderedDict, key):
    with _CACHE_LOCK:
        v = cache.get(key)
        if v is not None:
            cache.move_to_end(key)
        return v


def _cache_put(cache: OrderedDict, key, value):
    with _CACHE_LOCK:
        cache[key] = value
        cache.move_to_end(key)
        while len(cache) > _CACHE_SIZE:
            cache.popitem(last=False)


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


def parse_step_file(text: str, digest: str | None = None) -> ParsedStepFile:
    digest = digest or _digest(text)
    hit = _cache_get(_PARSE_CACHE, digest)
    if hit is not None:
        return hit
    result = ParsedStepFile({}, False)
    if len(text) <= MAX_STEP_FILE_BYTES:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            tree = None
        if tree is not None:
            funcs = {}
            for node in tree.body:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    a = node.args
                    issues = []
                    if a.posonlyargs:
                        issues.append("positional-only parameters")
                    if a.vararg:
                        issues.append(f"*{a.vararg.arg}")
                    if a.kwarg:
                        issues.append(f"**{a.kwarg.arg}")
                    if a.defaults or any(d is not None for d in a.kw_defaults):
                        issues.append("default values")
                    params = tuple(x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs))
                    funcs[node.name] = FunctionSig(node.name, node.lineno, params, tuple(issues))
            result = ParsedStepFile(funcs, True)
    _cache_put(_PARSE_CACHE, digest, result)
    return result


def _validate(text: str | bytes, python: str, uses: tuple) -> list[Problem]:
    """The validator (itself memoised per top-level statement: the one cache)."""
    try:
        from stepsmith.runner.validator import validate
    except ImportError as exc:  # fail closed, visibly
        return [Problem(code="SS003", message=f"step validator unavailable ({exc}); "
                        "the file was not checked", span=Span(1, 0, 1, 1))]
    return validate(text, python=python, uses=list(uses))


def clear_caches() -> None:
    with _CACHE_LOCK:
        _PARSE_CACHE.clear()
        _DISK_CACHE.clear()


# ------------------------------------------------------------------------------ the check


@dataclass
class WorkflowCheck:
    manifest: ManifestDoc
    problems: dict[Path, list[Problem]] = field(default_factory=dict)
    step_files: dict[Path, list] = field(default_factory=dict)  # path -> [StepUse]

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
    return data.decode("utf-8")  # UnicodeDecodeError is handled by the caller


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


def _step_use_cls():
    try:
        from stepsmith.runner.validator import StepUse

        return StepUse
    except ImportError:
        from collections import namedtuple

        return namedtuple("StepUse", "step_id function network effects", defaults=(None,))


def read_manifest_text(path: Path) -> tuple[str | None, list[Problem]]:
    """Read a manifest from disk: (text, problems). Oversized/undecodable files -> problems."""
    from .yamlpos import MAX_MANIFEST_CHARS

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
    validate_steps: bool = True,
) -> WorkflowCheck:
    """Check one workflow: the manifest, its cross references, its code files and signatures,
    and every step file with the validator (using each file's `uses` from the manifest).
    `validate_steps=False` (the editor, runner/workspace/diagnostics.py, which validates each
    open step file itself): step files get an empty entry, their uses are still collected."""
    manifest_path = Path(manifest_path)
    mpath = str(manifest_path)
    text = read_text(manifest_path) if read_text is not None else None
    pre: list[Problem] = []
    if text is None:
        text, pre = read_manifest_text(manifest_path)
    if text is None:
        doc = ManifestDoc("", mpath, None, None, pre)
        return WorkflowCheck(doc, {manifest_path: pre}, {})
    doc = parse_manifest(text, mpath)
    mprobs = list(doc.problems)
    result = WorkflowCheck(doc, {manifest_path: mprobs}, {})
    root = doc.root
    if not isinstance(root, YMap):
        return result
    steps = root.get("steps")
    if not isinstance(steps, YSeq):
        return result

    def add(code, message, span, step=None, data=None):
        mprobs.append(Problem(code=code, message=message, span=span, path=mpath, step=step,
                              rationale=rationale(code), data=data or {}))

    folder = manifest_path.parent
    try:
        folder_real = folder.resolve()
    except OSError:
        folder_real = folder.absolute()
    folder_prefix = str(folder_real).rstrip(os.sep) + os.sep
    resolved: dict[str, tuple[Path, bool]] = {}  # normalised code path -> (path, inside)
    python = root.data.get("python") if isinstance(root.data.get("python"), str) else "3.11"
    StepUse = _step_use_cls()
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
                add("SM201", f"code file {file_part!r} does not exist (looked in "
                    f"{_display(fpath)})" + did_you_mean(norm, near), file_span, sid,
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
    for fpath, file_uses in uses.items():
        if not validate_steps:
            probs = []
        elif fpath in undecodable:
            probs = _validate(undecodable[fpath], python, tuple(file_uses))
        else:
            probs = _validate(texts[fpath][0], python, tuple(file_uses))
        sp = str(fpath)
        probs = sorted([*probs, *def_problems.get(fpath, ())], key=Problem.sort_key)
        result.problems[fpath] = [dataclasses.replace(p, path=sp) for p in probs]
        result.step_files[fpath] = file_uses
    mprobs.sort(key=lambda p: (p.span.line, p.span.column, p.code))
    return result


_DISK_CACHE: OrderedDict[Path, tuple] = OrderedDict()


def _read_step_from_disk(path: Path, root: Path) -> tuple:
    """(text, digest, raw bytes when not UTF-8) or (None, None, None); re-read only when the
    file's (mtime_ns, size, inode) changed, so a re-check per keystroke does not re-hash files.
    Only a regular file whose real path is inside the workflow folder `root`, capped."""
    try:
        st = path.stat()
    except OSError:
        return (None, None, None)
    if not os.path.isfile(path):
        return (None, None, None)
    stamp = (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)
    hit = _cache_get(_DISK_CACHE, path)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    try:
        data = safeio.read_bytes(path, root=root, cap=safeio.STEP_FILE_CAP)
    except OSError:
        return (None, None, None)
    try:
        t = data.decode("utf-8")
        entry = (t, _digest(t), None)
    except UnicodeDecodeError:
        entry = (None, None, data)  # the validator reports SS004 with its position
    _cache_put(_DISK_CACHE, path, (stamp, entry))
    return entry


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


def _display(p: Path) -> str:
    try:
        return os.path.relpath(p)
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


def _def_reporter(sink: dict, fpath: Path, text: str, sig: FunctionSig, sid: str | None,
                  manifest_path: Path):
    """A callback putting a signature mismatch on the function's `def` line in the step file
    (the manifest keeps its own problem at the input), pointing back at the manifest."""

    def def_span() -> Span:  # only when a problem is reported: most steps have none
        line = text.splitlines()[sig.line - 1] if 0 < sig.line <= text.count("\n") + 1 else ""
        col = line.find(sig.name, line.find("def") + 3) if "def" in line else -1
        return Span(sig.line, col, sig.line, col + len(sig.name)) if col >= 0 \
            else Span(sig.line, 0, sig.line, len(line))

    def report(code: str, manifest_span: Span, message: str, name: str) -> None:
        span = def_span()
        where = f"{manifest_path.name}:{manifest_span.line}"
        step = f"step `{sid}`" if sid else "a step"
        sink.setdefault(fpath, []).append(Problem(
            code=code, message=f"{step} ({where}): {message}", span=span, step=sig.name,
            rationale=rationale(code),
            data={"manifest": str(manifest_path), "manifest_line": manifest_span.line,
                  "name": name}))

    return report


def _check_signature(step: YMap, sig: FunctionSig, file_part: str, func_span: Span, cpair,
                     sid: str | None, add, on_def=None, fix_context=None) -> None:
    where = f"{file_part}:{sig.line}"
    lines = fixedits.lines_of(fix_context[0]) if fix_context else []
    if sig.problems:
        add("SM206", f"step function {sig.name}() ({where}) uses {', '.join(sig.problems)}; "
            "parameters must be plain names matching `inputs` exactly", func_span, sid)
    params = set(sig.params)
    inputs = step.get("inputs")
    input_pairs = inputs.pairs if isinstance(inputs, YMap) else []
    input_names = {p.name for p in input_pairs}
    for pair in input_pairs:
        if pair.name in ("connections", "effects"):
            continue  # SM108 already
        if pair.name not in params:
            free = [p for p in sig.params if p not in input_names and p not in RESERVED_INPUTS]
            add("SM204", f"input '{pair.name}' has no parameter in {sig.name}() ({where})"
                + did_you_mean(pair.name, free), pair.key.span, sid,
                fixedits.remove_input(lines, step, pair, closest(pair.name, free))
                if fix_context else None)
            if on_def is not None:
                on_def("SM204", pair.key.span, f"the manifest gives this step input "
                       f"'{pair.name}', which {sig.name}() has no parameter for", pair.name)
    ipair = step.pair("inputs")
    missing_at = ipair.key.span if ipair is not None else func_span
    missing = [n for n in sig.params if n not in RESERVED_INPUTS and n not in input_names]
    add_fix = None
    if missing and fix_context:  # one fix adding every missing input, on each problem
        sources, readable = fixedits.sources_and_steps(fix_context[1], sid)
        add_fix = fixedits.add_inputs(lines, step, missing, sources, readable)
    for name in missing:
        add("SM205", f"parameter '{name}' of {sig.name}() ({where}) has no input; add it under "
            "`inputs`", missing_at, sid, add_fix)
        if on_def is not None:
            on_def("SM205", missing_at, f"parameter '{name}' of {sig.name}() has no input under "
                   "the step's `inputs` in the manifest", name)
    # `connections` is optional even when connections are declared (ARCHITECTURE: "plus
    # optionally connections"); taking it without declaring any can never receive anything.
    # A step with declared effects must take `effects` (that is the only way to emit them),
    # and taking `effects` without declaring any is refused likewise.
    for reserved, code, noun in (("connections", "SM207", "connections"), ("effects", "SM208", "effects")):
        lst = step.get(reserved)
        declared = isinstance(lst, YSeq) and len(lst.items) > 0
        takes = reserved in params
        lpair = step.pair(reserved)
        if reserved == "effects" and declared and not takes:
            add(code, f"the step declares effects but {sig.name}() ({where}) has no `effects` "
                "parameter, so it could never emit them; add the parameter or remove the effects",
                lpair.key.span if lpair else func_span, sid)
        elif takes and not declared:
            add(code, f"{sig.name}() ({where}) takes `{reserved}` but the step declares no "
                f"{noun}; declare them under the step's `{reserved}` or remove the parameter",
                func_span, sid)
