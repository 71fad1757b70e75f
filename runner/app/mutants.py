"""The fixture-strength use case: `stepsmith mutants`, the editor's `stepsmith/mutants`, the MCP
`mutants` tool.

First every selected fixture runs once on the unmutated code, traced, through the suite's
engine (`app.case_run.run_cases`, the sandboxes `stepsmith test` uses), or is taken from
the editor's own traced run of the same text (`MutantsRequest.ran`): that says what each
fixture reaches (and which fixtures pass: one that fails already cannot judge a mutant and
is left out, with a note); the editor's refresh judges on its last run's baseline meanwhile
(`MutantsRequest.guess`, app/mutant_baseline.py), kept only if the real one is the same. Then
the mutants (each the text of its step file, `LoadedWorkflow.texts`) run the fixtures that
reach their line, in rounds (app/mutant_rounds.py), many runs to a sandbox (app/mutant_judge.py: forked children of one
sandbox, each with a `test` run's limits). Verdicts and baselines are cached
(runner/mutants/cache.py). Nothing is written to a workflow folder: no pending change, no
last-failed state, no durations.
"""

from __future__ import annotations

import ast
import dataclasses
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from stepsmith.runner import safeio
from stepsmith.runner.app import case_run  # (run_cases late: tests wrap it)
from stepsmith.runner.app import cases as suite
from stepsmith.runner.app.mutant_baseline import Baseline
from stepsmith.runner.app.mutant_judge import Servers, _prepared
from stepsmith.runner.app.mutant_rounds import Rounds
from stepsmith.runner.app.mutant_select import chosen_steps
from stepsmith.runner.app.suite import CaseResult
from stepsmith.runner.app.workflow import (
    InvokeError,
    active_limits,
    clock_timezone,
    display_path,
    step_code,
)
from stepsmith.runner.codeprint import code_fingerprint
from stepsmith.runner.coverage.static import analyse
from stepsmith.runner.errors import UsageError
from stepsmith.runner.fixtures.effects import effects_declared
from stepsmith.runner.mutants.cache import Cache, enabled, key_after, prefix
from stepsmith.runner.mutants.generate import closure, file_mutants
from stepsmith.runner.mutants.verdicts import MutantsReport, OptedOut
from stepsmith.runner.sandbox import runtime_identity
from stepsmith.runner.sandbox.forks import imports_of
from stepsmith.runner.sandbox.process import joined
from stepsmith.runner.sandbox.result import StepResult

if TYPE_CHECKING:
    from stepsmith.runner.app.workflow import LoadedWorkflow


@dataclass(frozen=True)
class MutantsRequest:
    paths: list[str]
    steps: list[str] = field(default_factory=list)  # --step, any of them
    keywords: list[str] = field(default_factory=list)  # -k, any of them
    jobs: int | None = None
    cache: bool = True
    texts: Mapping[str, str] = field(default_factory=dict)  # path -> unsaved text (editor)
    # the editor's own runs of these fixtures (run-on-save), to take as the baseline: called
    # (it may wait for that run to end) only when a baseline is not cached; maps (manifest,
    # step id, case) to (the step file's text the run executed, its app.suite.CaseResult)
    ran: Callable[[], Mapping[tuple[str, str, str], tuple]] | None = None
    # the baseline of the editor's last run of these files (MutantsReport.baselines): judged
    # on first when it covers every fixture to run, then checked (app/mutant_baseline.py)
    guess: Mapping[tuple[str, str, str], tuple] | None = None


@dataclass
class _File:
    """One step file to mutate: its text, the steps of it chosen, their fixtures."""

    lw: LoadedWorkflow
    path: Path  # resolved
    shown: str
    text: str
    steps: list = field(default_factory=list)  # manifest Steps whose code is here
    cases: list = field(default_factory=list)  # their selected, runnable fixtures
    uses: list = field(default_factory=list)

    @property
    def python(self) -> str:
        return str(getattr(self.lw.workflow, "python", "3.11"))


def run_mutants(req: MutantsRequest, *, on_progress: Callable[[int, int], None] | None = None,
                stop: threading.Event | None = None, pool: Executor | None = None,
                group=None, servers: Servers | None = None,
                rounds: Executor | None = None) -> MutantsReport:
    """Mutate the chosen steps and judge every mutant with their fixtures. UsageError for a
    selection that names nothing; SandboxUnavailable when fixtures would have to run and
    cannot. `stop` (set from another thread): start nothing new, report `cancelled`.
    `pool`: run the fixtures there (the editor's run pool) instead of threads of this run;
    `group` (sandbox.process.Group): every sandbox joins it, so `group.kill()` ends them.
    `servers` (app/mutant_judge.Servers): the fork servers to judge in, kept by the caller
    (the editor's, from one run to the next); by default the run's own, ended with it.
    `rounds`: the threads the mutants' rounds wait for their fork servers on (the editor's,
    bounding its runs together), never `pool`; by default threads of this run."""
    started = time.perf_counter()
    stop = stop if stop is not None else threading.Event()
    if req.jobs is not None and req.jobs < 1:
        raise UsageError("-j must be at least 1")
    sreq = suite.SuiteRequest(paths=req.paths, steps=req.steps, keywords=req.keywords,
                              jobs=req.jobs)
    selection = suite.select(sreq)
    report = MutantsReport()
    files = _files(selection, req, report)
    suite.ensure_sandbox([c for f in files for c in f.cases])
    cache = Cache(on=req.cache and enabled())
    judge = None
    try:
        judge = _Judge(files, req, cache, report, stop, on_progress, pool, group, servers)
        judge.rounds = rounds
        # the mutants are worked out (parsing, validating each) and the fork servers that
        # will judge them started while the baseline's sandboxes run (or the editor's run
        # of the same fixtures ends): neither needs the other
        with ThreadPoolExecutor(2, thread_name_prefix="stepsmith-mutants-plan") as helper:
            planned = helper.submit(judge.plan_and_warm)
            guessed = judge.baseline()
            # judged on a guess: the real baseline meanwhile, and the verdicts stand only if
            # it is the same (else judged again on it)
            real = helper.submit(judge.settle) if guessed else None
            work = planned.result()
            judge.mutate(work)
            if real is not None and not judge.confirm(real.result()) \
                    and not stop.is_set():
                report.mutants.clear()
                report.rejudged = True
                judge.mutate(work)
    finally:
        if judge is not None and servers is None:
            judge.servers.close()
        cache.close()
    report.cancelled = stop.is_set()
    report.seconds = time.perf_counter() - started
    return report


def _files(selection, req: MutantsRequest, report: MutantsReport) -> list[_File]:
    chosen = chosen_steps(selection, req.paths, req.steps, req.keywords)
    texts = {Path(p).resolve(): t for p, t in req.texts.items()}
    files: dict[tuple[Path, Path], _File] = {}
    for lw in selection.workflows:
        if not lw.ok:
            report.blocked += 1
            report.notes.append(f"{lw.shown}: the workflow has check problems; nothing was "
                                f"mutated ({(lw.error_lines() or ['see stepsmith check'])[0]})")
    for lw, step in chosen:
        if not lw.ok:
            continue
        if step.network == "public_egress":
            report.notes.append(f"{lw.shown}::{step.id}: a public_egress step's fixtures are "
                                "served from their recordings offline, so no mutant of it can "
                                "be noticed; not mutated")
            continue
        try:
            code = step_code(lw, step)
        except InvokeError as exc:
            report.notes.append(str(exc))
            continue
        if code.path in texts:
            lw.texts[code.path] = texts[code.path]
            code.source = texts[code.path]
        f = files.get((lw.manifest_path, code.path))
        if f is None:
            f = files[(lw.manifest_path, code.path)] = _File(
                lw, code.path, display_path(code.path), code.source, uses=list(code.uses))
        f.steps.append(step)
    ids = {s.id for f in files.values() for s in f.steps}
    for c in selection.selected:
        f = next((f for f in files.values() if f.lw is c.workflow
                  and any(s.id == c.step_id for s in f.steps)), None)
        if f is None or c.step_id not in ids:
            continue
        if c.fixture is None or c.problems:
            report.notes.append(f"{c.id}: cannot run ({(c.problems or ['no fixture'])[0]}); "
                                "left out")
            continue
        f.cases.append(c)
    return list(files.values())


_CODE: list[str] = []

# the plans of the step-file texts judged last: (text, functions, python, uses) -> (their
# FileMutants, {mutant text: (its syntax tree, its closures' text by function)}). A refresh
# after a fixture or the manifest is saved judges the same text again; file_mutants is a
# function of exactly these (and of this process's code), its Mutants immutable.
_PLANS: OrderedDict[tuple, tuple] = OrderedDict()
_PLANS_LOCK = threading.Lock()
_PLANS_KEPT = 8


def _file_plan(text: str, functions: list[str], python: str, uses) -> tuple:
    """(file_mutants(...), the per-mutant memo), the last ones for these arguments kept."""
    k = (text, tuple(functions), python, tuple(uses))
    try:
        hash(k)
    except TypeError:  # a use that cannot be a key: not kept
        return file_mutants(text, functions, python=python, uses=uses), {}
    with _PLANS_LOCK:
        hit = _PLANS.get(k)
        if hit is not None:
            _PLANS.move_to_end(k)
            return hit
    made: tuple = (file_mutants(text, functions, python=python, uses=uses), {})
    with _PLANS_LOCK:
        _PLANS[k] = made
        while len(_PLANS) > _PLANS_KEPT:
            _PLANS.popitem(last=False)
    return made


def _code() -> str:
    """stepsmith's code fingerprint (runner/codeprint.py), worked out once per process."""
    if not _CODE:
        _CODE.append(code_fingerprint("mutants"))
    return _CODE[0]


class _Judge(Baseline, Rounds):
    """The two phases of a run over the chosen files, sharing the cache and the stop event
    (the mutants' rounds: app/mutant_rounds.py)."""

    def __init__(self, files: list[_File], req: MutantsRequest, cache, report: MutantsReport,
                 stop: threading.Event, on_progress, pool: Executor | None = None,
                 group=None, servers: Servers | None = None) -> None:
        self.files, self.req, self.cache, self.report = files, req, cache, report
        self.stop, self.on_progress, self.pool, self.group = stop, on_progress, pool, group
        self.jobs = max(1, req.jobs or case_run.default_jobs())
        limits = active_limits()
        self.salt = (_code(), runtime_identity(),
                     dataclasses.asdict(limits) if dataclasses.is_dataclass(limits)
                     else repr(limits))
        self.ran: dict[str, frozenset[int]] = {}  # case id -> statements its baseline ran
        self.passing: dict[str, float] = {}  # case id -> baseline duration (passing only)
        self.lock = threading.Lock()
        self._bytes: dict[str, bytes] = {}
        self._prefixes: dict[tuple[str, str], object] = {}  # (kind, case id) -> key prefix

        imports = sorted({n for f in files for n in imports_of(f.text)})
        self.servers = servers if servers is not None else Servers(
            imports, group, keep=self.sandboxes())
        self.servers.add_imports(imports)

    # ------------------------------------------------------------------ keys
    def _fixture_bytes(self, case) -> bytes:
        found = self._bytes.get(case.id)
        if found is None:
            found = self._bytes[case.id] = safeio.read_bytes(
                case.path, root=case.workflow.dir, cap=safeio.FIXTURE_CAP)
        return found

    def _key(self, kind: str, f: _File, case, code: str) -> str:
        # what a fixture's keys share (a mutant's workflow differs from the step's in its
        # text only), hashed once per fixture
        first = self._prefixes.get((kind, case.id))
        if first is None:
            step = case.workflow.step(case.step_id)
            config = {"function": step.code_ref.function, "inputs": step.inputs,
                      "connections": list(step.connections or ()), "network": step.network,
                      "effects": effects_declared(case.workflow.workflow, step),
                      "python": f.python, "timezone": clock_timezone(case.workflow)}
            first = self._prefixes[(kind, case.id)] = prefix(kind, self.salt, config)
        return key_after(first, code, self._fixture_bytes(case))

    rounds: Executor | None = None

    def _map(self, fn, items: list) -> list:
        """fn over items, `jobs` at a time (or on the caller's `rounds`), in order; each
        call's sandboxes join the group. Never on the caller's run pool: a call mostly waits
        for its fork server, and there it would hold the workers the run-on-save (the real
        baseline of a guess, app/mutant_baseline.py) waits for."""
        def one(item):
            if self.group is None:
                return fn(item)
            with joined(self.group):
                return fn(item)

        if self.jobs == 1 or len(items) <= 1:
            return [one(item) for item in items]
        pool = self.rounds or ThreadPoolExecutor(self.jobs, thread_name_prefix="stepsmith-mutant")
        futures = []
        try:
            futures = [pool.submit(one, item) for item in items]
            return [f.result() for f in futures]
        except BaseException:  # Ctrl-C, a cancelled request: start nothing new, wait for none
            self.stop.set()
            for f in futures:
                f.cancel()
            raise
        finally:
            if pool is not self.rounds:
                pool.shutdown(wait=False, cancel_futures=True)

    # ------------------------------------------------------------------ mutants
    def plan_and_warm(self) -> list:
        """`plan`, each mutant's verdict keys worked out (the closures' text: the first
        round's runs wait for none of it), then the fork servers of the first round started
        when a verdict is not cached (what the baseline leaves to run is not known yet)."""
        work, interps, keys = [], {}, []
        for f, m, steps, statement, memo in self.plan():
            if m.text not in memo:  # (a text's tree and closures: the same in every run)
                memo[m.text] = (ast.parse(m.text), dict[str, str]())
            tree, codes = memo[m.text]
            keys.append([self._mutant_key(f, m.text, tree, c, codes) for c in f.cases])
            work.append((f, m, steps, statement, tree, codes))
        self.cache.prefetch(k for ks in keys for k in ks)
        for (f, *_), ks in zip(work, keys, strict=True):
            if any(self.cache.get(k) is None for k in ks) and id(f) not in interps \
                    and not self.stop.is_set():
                p = _prepared(f.cases[0])
                if not isinstance(p, CaseResult | StepResult):
                    interps[id(f)] = p.interp
        for interp in {self.servers._key(i): i for i in interps.values()}.values():
            self.servers.warm(interp, self.sandboxes())
        return work

    def plan(self) -> list:
        """Every mutant of the chosen files, with the steps whose code it is in, the
        statement it changes and its file's memo (`_file_plan`; nothing runs)."""
        work = []
        for f in self.files:
            tree = ast.parse(f.text)
            closures = {s.id: {n.name for n in closure(tree, [s.code_ref.function])
                               if isinstance(n, ast.FunctionDef)} for s in f.steps}
            functions = set().union(*closures.values()) if closures else set()
            found, memo = _file_plan(f.text, sorted(functions), f.python, f.uses)
            self.report.refused += found.refused
            self.report.opted_out += [OptedOut(f.shown, o.line, o.text, o.mutants)
                                      for o in found.opted_out]
            shape = analyse(f.text)
            for m in found.mutants:
                steps = [s for s in f.steps if m.function in closures[s.id]]
                work.append((f, m, steps, shape.statement_of(m.line), memo))
        return work
