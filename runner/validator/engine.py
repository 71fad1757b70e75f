"""`validate()`: source in, sorted problems out. Pure, never raises, fails closed."""

from __future__ import annotations

import _ast  # the node classes and PyCF_ONLY_AST, without `ast`'s imports (enum, contextlib)
import _thread
import sys
import warnings

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: `typing`/`collections.abc` are not imported at run time
    from collections.abc import Iterable, Sequence

from stepsmith.runner.problems import Problem, Span, moved_along, shifted
from stepsmith.runner.validator import chunks, policy
from stepsmith.runner.validator.astlock import AST_LOCK
from stepsmith.runner.validator.model import StepUse
from stepsmith.runner.validator.positions import Positions
from stepsmith.runner.validator.walk import rationale

_BOM = "\ufeff"
# `warnings.catch_warnings` swaps process-global state: serialise it between validator
# threads (the language server may validate from a pool) so a save/restore never interleaves.
_WARNINGS_LOCK = _thread.allocate_lock()


def _problem(code: str, span: Span, message: str, step: str | None = None) -> Problem:
    return Problem(code=code, message=message, span=span, step=step,
                   rationale=rationale(code))


def _feature_version(python: str) -> tuple[int, int] | None:
    try:
        major, minor = (int(p) for p in str(python).split(".")[:2])
    except ValueError:
        return None
    if major != 3 or not 7 <= minor <= sys.version_info[1]:
        return None
    return (major, minor)


def _egress_allowed(uses: Sequence[StepUse]) -> bool:
    return bool(uses) and all(getattr(u, "network", None) == "public_egress" for u in uses)


def _effects_view(uses: Sequence[StepUse]) -> tuple | None:
    """((function, step id, ((effect, key field), ...)), ...) for the effect rules (SS6xx),
    hashable for the chunk cache; None when any use does not say what it declares."""
    if not uses:
        return None
    view = []
    for u in uses:
        effects = getattr(u, "effects", None)
        if effects is None:
            return None
        view.append((str(u.function), str(u.step_id), effects))
    return tuple(sorted(view))


def _decode(source: str | bytes, line_offset: int, out: list[Problem]) -> str | None:
    """Text to parse, or None after reporting why there is none (SS002/SS004)."""
    cap = policy.MAX_SOURCE_BYTES
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        if len(data) > cap:
            out.append(_too_large(len(data), line_offset))
            return None
        if data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            prefix = data[: exc.start].decode("utf-8", "replace")
            span = Positions(prefix, line_offset).offset_to_span(len(prefix))
            out.append(_problem("SS004", span, f"file is not valid UTF-8: byte "
                                f"0x{data[exc.start]:02X} cannot be decoded"))
            return None
        return text
    if not isinstance(source, str):
        raise TypeError(f"source must be str or bytes, not {type(source).__name__}")
    text = source[1:] if source.startswith(_BOM) else source
    if len(text) > cap:
        out.append(_too_large(len(text), line_offset, at_least=True))
        return None
    if not text.isascii():
        try:
            size = len(text.encode("utf-8"))
        except UnicodeEncodeError as exc:  # lone surrogates: not text any encoder accepts
            span = Positions(text, line_offset).offset_to_span(exc.start)
            out.append(_problem("SS004", span, "file is not valid UTF-8: it contains a lone "
                                f"surrogate U+{ord(text[exc.start]):04X}"))
            return None
        if size > cap:
            out.append(_too_large(size, line_offset))
            return None
    return text


def _too_large(size: int, line_offset: int, at_least: bool = False) -> Problem:
    more = "at least " if at_least else ""
    return _problem("SS002", Span(1 + line_offset, 0, 1 + line_offset, 1),
                    f"file is {more}{size:,} bytes; the limit is "
                    f"{policy.MAX_SOURCE_BYTES:,} bytes")


def _syntax_problem(exc: SyntaxError, pos: Positions) -> Problem:
    lineno = exc.lineno if isinstance(exc.lineno, int) and exc.lineno > 0 else 1
    # 3.11: `offset`/`end_offset` are 1-based and count characters (code points) of the line
    offset = exc.offset if isinstance(exc.offset, int) and exc.offset > 0 else 1
    col = offset - 1
    end_lineno = exc.end_lineno if isinstance(exc.end_lineno, int) else None
    end_offset = exc.end_offset if isinstance(exc.end_offset, int) else None
    if end_lineno is None or end_offset is None or end_offset <= 0 or end_lineno < lineno \
            or (end_lineno == lineno and end_offset <= offset):
        end_lineno, end_col = lineno, col + 1
    else:
        end_col = end_offset - 1
    msg = exc.msg or "invalid syntax"
    kind = "indentation error" if isinstance(exc, IndentationError) else "syntax error"
    return _problem("SS001", pos.span(lineno, col, end_lineno, end_col), f"{kind}: {msg}")


def _parse(text: str, feature: tuple[int, int] | None, pos: Positions,
           out: list[Problem]) -> _ast.Module | None:
    # Exactly `ast.parse(text, feature_version=feature)` (what it does in 3.11), without
    # importing `ast`: the validator also runs inside every sandbox, where import time counts.
    minor = -1 if feature is None else feature[1]
    try:
        with AST_LOCK, _WARNINGS_LOCK, warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarning/DeprecationWarning: not ours to show
            return compile(text, "<unknown>", "exec", _ast.PyCF_ONLY_AST, dont_inherit=True,
                           _feature_version=minor)
    except SyntaxError as exc:
        out.append(_syntax_problem(exc, pos))
    except (RecursionError, MemoryError) as exc:
        out.append(_problem("SS003", pos.span(1, 0, 1, 1),
                            "the code is nested too deeply to check "
                            f"({type(exc).__name__} in the parser); refused"))
    return None


def _check(tree: _ast.Module, pos: Positions, egress: bool, out: list[Problem],
           effects: tuple | None = None, version: tuple[int, int] | None = None) -> None:
    from stepsmith.runner.validator.checks import DISPATCH, check_top_level
    from stepsmith.runner.validator.walk import Context, walk

    ctx = Context(pos=pos, egress_allowed=egress, problems=out)
    ctx.effects = effects
    ctx.version = version
    for stmt in tree.body:
        cls = stmt.__class__
        ctx.root = stmt
        ctx.step = stmt.name if cls is _ast.FunctionDef or cls is _ast.AsyncFunctionDef else None
        check_top_level(ctx, stmt)
        walk(stmt, ctx, DISPATCH)
        ctx.finish()


def _chunk_result_uncached(chunk: str, feature: tuple[int, int] | None,
                           egress: bool, effects: tuple | None = None,
                           ) -> tuple[bool, tuple[Problem, ...]]:
    pos = Positions(chunk, 0)
    out: list[Problem] = []
    tree = _parse(chunk, feature, pos, out)
    if tree is None:
        return False, tuple(out)
    _check(tree, pos, egress, out, effects, feature)
    return True, tuple(out)


def _cache_info(*fields):
    from functools import _CacheInfo  # only when someone asks for the statistics

    return _CacheInfo(*fields)


# Chunk cache: (chunk text, grammar, egress, effects view) -> (parsed?, problems at line 0).
# Bounded; entries are immutable tuples. The C LRU behind `functools.lru_cache` (what it
# returns, minus `update_wrapper`), so the sandbox does not import `functools`/`collections`.
try:
    from _functools import _lru_cache_wrapper
except ImportError:  # pragma: no cover - CPython always has it
    from functools import lru_cache

    _chunk_result = lru_cache(maxsize=2048)(_chunk_result_uncached)
else:
    _chunk_result = _lru_cache_wrapper(_chunk_result_uncached, 2048, False, _cache_info)


def _chunk_problems(chunk: str, feature, egress: bool,
                    effects: tuple | None = None) -> tuple[Problem, ...] | None:
    """Problems of one chunk, or None when it does not parse on its own."""
    parsed, problems = _chunk_result(chunk, feature, egress, effects)
    return problems if parsed else None


def clear_cache() -> None:
    """Forget every memoised statement (tests and benchmarks)."""
    _chunk_result.cache_clear()


def statements_parsed() -> int:
    """How many top-level statements (or merged groups) have been parsed and checked since the
    cache was cleared: the cost of incremental validation (tests, benchmarks)."""
    return _chunk_result.cache_info().misses


_MAX_MERGE = 8


def _shifted(problem: Problem, lines: int) -> Problem:
    return shifted(problem, lines)


def _validate_chunked(text: str, feature, egress: bool, line_offset: int,
                      effects: tuple | None = None) -> list[Problem] | None:
    parts = chunks.split(text)
    if parts is None:
        return None
    out: list[Problem] = []
    i, n = 0, len(parts)
    while i < n:
        chunk, first_line = parts[i]
        got = _chunk_problems(chunk, feature, egress, effects)
        j = i
        # A split inside a multi-line string or brackets (a docstring with column-0 lines):
        # the chunk parses together with the next few.
        while got is None and j + 1 < n and j - i < _MAX_MERGE:
            j += 1
            chunk += parts[j][0]
            got = _chunk_problems(chunk, feature, egress, effects)
        if got is None:
            if i == 0 and j == n - 1:  # the chunk is the whole text: its failure is the answer
                return [_shifted(p, line_offset) for p in _chunk_result(chunk, feature, egress, effects)[1]]
            return None  # a real syntax error: one whole-file parse reports it exactly
        shift = first_line + line_offset
        out.extend(_shifted(p, shift) for p in got)
        i = j + 1
    return out


#: Below this many characters (bytes) the GC pause is not worth importing `gc` for (a step
#: file of a few functions: the sandbox validates one per run).
_GC_PAUSE_MIN_SIZE = 16 * 1024


def _run(source, python, uses, line_offset: int, chunked: bool) -> list[Problem]:
    # The AST is a large acyclic object graph freed by reference counting; the cyclic GC
    # only re-traverses it while it is built (~20% of a 10,000-line validation). Paused for
    # the call, and only if it was on, so a caller's own gc.disable() is left alone.
    if not isinstance(source, (str, bytes, bytearray)) or len(source) < _GC_PAUSE_MIN_SIZE:
        return _run_inner(source, python, uses, line_offset, chunked)
    import gc

    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        return _run_inner(source, python, uses, line_offset, chunked)
    finally:
        if paused:
            gc.enable()


def _run_inner(source, python, uses, line_offset: int, chunked: bool) -> list[Problem]:
    out: list[Problem] = []
    try:
        uses = tuple(uses)
        text = _decode(source, line_offset, out)
        if text is not None:
            pos = Positions(text, line_offset)
            nul = text.find("\x00")
            if nul >= 0:
                out.append(_problem("SS001", pos.offset_to_span(nul), "syntax error: the file "
                                    "contains a null byte (binary content?)"))
            else:
                feature = _feature_version(python)
                egress = _egress_allowed(uses)
                effects = _effects_view(uses)
                found = (_validate_chunked(text, feature, egress, line_offset, effects)
                         if chunked else None)
                if found is not None:
                    out.extend(found)
                else:
                    tree = _parse(text, feature, pos, out)
                    if tree is not None:
                        _check(tree, pos, egress, out, effects, feature)
    except Exception as exc:  # noqa: BLE001 -- fail closed: anything unexpected refuses the file
        detail = f"{type(exc).__name__}: {exc}"[:200]
        out.append(_problem("SS003", Span(1 + line_offset, 0, 1 + line_offset, 1),
                            f"validator failed closed: internal error ({detail})"))
    if isinstance(source, str) and source.startswith(_BOM):
        # positions in the text as given: its BOM is line 1's first character
        out = [moved_along(p, 1 + line_offset, 1) for p in out]
    out.sort(key=Problem.sort_key)
    return out


def validate(source: str | bytes, *, python: str = "3.11", uses: Sequence[StepUse] = (),
             line_offset: int = 0) -> list[Problem]:
    """Check step code against the step dialect without running it.

    `uses`: the steps that run functions from this file; `urllib.request|parse|error`
    imports are allowed only when it is non-empty and every use is `public_egress`; when
    every use carries its declared `effects`, `effects.emit(...)` is checked against them.
    `line_offset` shifts reported lines (validate one function's text with
    `line_offset=<its first line - 1>`). Returns problems sorted by position; never raises:
    an internal failure is reported as SS003 (fail closed).

    Top-level statements are validated one by one and memoised by their text (see
    `chunks`), so re-validating a buffer where one function changed re-parses only that one.
    """
    return _run(source, python, uses, line_offset, chunked=True)


def validate_whole_file(source: str | bytes, *, python: str = "3.11",
                        uses: Sequence[StepUse] = (), line_offset: int = 0) -> list[Problem]:
    """`validate` without the statement cache: one parse of the whole text (tests, bench)."""
    return _run(source, python, uses, line_offset, chunked=False)


def first_violation_per_step(problems: Iterable[Problem]) -> list[Problem]:
    """The gate's view: the first problem (by position) of each step, per file.

    Problems outside any step function (module level, SS0xx) form one group of their own.
    """
    seen: set[tuple[str | None, str | None]] = set()
    out: list[Problem] = []
    for problem in sorted(problems, key=Problem.sort_key):
        key = (problem.path, problem.step)
        if key not in seen:
            seen.add(key)
            out.append(problem)
    return out
