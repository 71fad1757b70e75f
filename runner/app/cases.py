"""The fixture-suite use case, shared by `stepsmith test`, the pytest plugin and the server:
select fixtures (the one discovery, pytest's selection), run them in sandboxes, keep the
fixture loop's books (last failed, pending changes, --update, stale wired fixtures).

Outcomes are typed: each fixture's :class:`CaseResult` keeps its differences as structured
:class:`Difference` records (path, kind, expected, actual); rendering happens at the edge.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from stepsmith.runner.app.errors import SandboxUnavailable, UsageError
from stepsmith.runner.fixtures.suite import Case, CaseResult

OUTCOMES = ("passed", "recorded", "failed", "error")


@dataclass(frozen=True)
class SuiteRequest:
    paths: list[str]
    steps: list[str] = field(default_factory=list)  # --step, any of them
    keywords: list[str] = field(default_factory=list)  # -k, any of them
    last_failed: bool = False
    failed_first: bool = False  # --ff: what failed last time runs first
    ci: bool = False  # in CI: no pending change is written (as insta's --ci)
    jobs: int | None = None
    maxfail: int | None = None
    live: bool = False
    update: bool = False  # accept every acceptable changed output
    strict: bool = False  # stale wired fixtures fail the run
    coverage: bool = False  # trace the step files (line and branch coverage)
    repeat: int = 1  # run each fixture this many times in fresh sandboxes (determinism)
    shard: tuple[int, int] | None = None  # (K, N): only the K-th of N balanced parts
    durations_path: str | None = None  # one durations file (CI cache) instead of .stepsmith/
    store_durations: bool | None = None  # None: only when not sharding (shards read, never write)
    stepwise: bool = False  # --sw: stop at the first failure, start from it next time
    stepwise_skip: bool = False  # --sw-skip: let the first failure pass, stop at the next
    stepwise_reset: bool = False  # --sw-reset: forget where the last --sw run stopped


@dataclass
class Selection:
    workflows: list  # LoadedWorkflow
    cases: list[Case]  # every fixture of those workflows
    selected: list[Case]
    notes: list[str] = field(default_factory=list)  # what --lf did
    stepwise: object = None  # fixtures.stepwise.Plan under --sw

    @property
    def without_fixtures(self) -> set[str]:
        having = {c.workflow.shown for c in self.cases}
        return {w.shown for w in self.workflows if w.shown not in having}


@dataclass
class LoopReport:
    """What the fixture loop did after the run."""

    written: list = field(default_factory=list)  # PendingChange
    problems: list[str] = field(default_factory=list)
    decisions: list = field(default_factory=list)  # fixture_loop.Decision (--update)
    stale: list = field(default_factory=list)  # StaleFixture
    strict: bool = False
    update: bool = False
    ci_not_written: int = 0  # pending changes not written because CI is set

    def to_json(self) -> dict:
        return {"pending": [str(c.path) for c in self.written],
                "ci_not_written": self.ci_not_written,
                "pending_problems": self.problems,
                "updated": [d.to_json() for d in self.decisions],
                "stale": [s.to_json() for s in self.stale]}


@dataclass
class SuiteOutcome:
    selection: Selection
    results: list[CaseResult]
    seconds: float
    loop: LoopReport
    traced: bool = False  # run with coverage

    @property
    def not_run(self) -> int:  # left out by -x / --maxfail
        return len(self.selection.selected) - len(self.results)

    @property
    def counts(self) -> dict[str, int]:
        return {o: sum(r.outcome == o for r in self.results) for o in OUTCOMES}

    @property
    def executed(self) -> int:
        """Fixtures that actually ran in a sandbox (not served from a recording, not refused
        before running)."""
        return sum(1 for r in self.results if r.outcome in ("passed", "failed")
                   or (r.outcome == "error" and r.result is not None
                       and r.result.get("status") != "unavailable"))

    @property
    def failed(self) -> bool:
        counts = self.counts
        updated = sum(d.outcome in ("accepted", "already") for d in self.loop.decisions)
        if counts["error"] or counts["failed"] - updated > 0:
            return True
        return bool(self.loop.strict and self.loop.stale)

    def coverage(self) -> list:
        """Per step file coverage (runner.coverage FileCoverage, named by the file's shown
        path) over the fixtures that ran traced; [] when the run did not ask for coverage."""
        import dataclasses

        from stepsmith.runner.coverage.combine import combine

        if not self.traced:
            return []
        by_file: dict[str, tuple[str, list]] = {}
        for r in self.results:
            if r.coverage is not None and r.code:
                by_file.setdefault(r.code[0], (r.code[1], []))[1].append((r.case.id, r.coverage))
        for shown, source in self._step_sources():  # as coverage.py reports unimported files
            by_file.setdefault(shown, (source, []))
        out = []
        for shown in sorted(by_file):
            source, traces = by_file[shown]
            # traces name the manifest's path; a file no fixture ran has none to match
            try:
                fc = combine(traces[0][1].file if traces else shown, source, traces)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                continue  # as coverage.py skips a file it cannot parse (the check names it)
            out.append(dataclasses.replace(fc, file=shown))
        return out

    def _step_sources(self) -> list[tuple[str, str]]:
        """(shown path, text) of every step file the selected workflows name."""
        from stepsmith.runner.fixtures.invoke import (
            InvokeError,
            display_path,
            step_code,
        )

        out = []
        for lw in self.selection.workflows:
            for step in (lw.workflow.steps if lw.workflow is not None else []):
                if getattr(step, "code_ref", None) is None:
                    continue
                try:
                    code = step_code(lw, step)
                except InvokeError:  # unreadable: the check reported it
                    continue
                out.append((display_path(code.path), code.source))
        return out

    def to_json(self) -> dict:
        executed, seconds = self.executed, self.seconds
        doc = {
            "results": [r.to_json() for r in self.results],
            "summary": {**self.counts, "total": len(self.results), "not_run": self.not_run,
                        "executed": executed, "seconds": round(seconds, 3),
                        "fixtures_per_second": round(executed / seconds, 2)
                        if seconds > 0 and executed else None},
            "workflows": [{"path": w.shown, "ok": w.ok, "problems": w.error_lines()}
                          for w in self.selection.workflows],
        }
        doc.update(self.loop.to_json())
        sw = self.selection.stepwise
        if sw is not None:  # --sw: what it skipped, and where the next --sw run starts
            doc["stepwise"] = {"note": sw.note, "next_start": sw.start or None}
        if self.traced:
            from stepsmith.runner.coverage import report

            doc["coverage"] = report.to_json(self.coverage())
        return doc


def select(req: SuiteRequest) -> Selection:
    """The fixtures the request selects; UsageError when it selects nothing it named."""
    from stepsmith.runner.fixtures.invoke import InvokeError, unknown_step_message
    from stepsmith.runner.fixtures.selection import (
        SelectionError,
        compile_keywords,
        manifests_of,
        parse_target,
        select_cases,
    )
    from stepsmith.runner.fixtures.suite import load

    if req.jobs is not None and req.jobs < 1:
        raise UsageError("-j must be at least 1")
    if req.maxfail is not None and req.maxfail < 1:
        raise UsageError("--maxfail must be at least 1")
    if req.repeat < 1:
        raise UsageError("--repeat must be at least 1")
    try:
        targets = [parse_target(p) for p in req.paths]
        keywords = compile_keywords(req.keywords)
    except SelectionError as exc:
        raise UsageError(str(exc)) from None
    try:
        workflows, cases = load(manifests_of(targets))
    except InvokeError as exc:
        raise UsageError(str(exc)) from None
    if not workflows:
        raise UsageError(f"no workflow manifests under {' '.join(req.paths)}")
    known = sorted({s for w in workflows for s in w.step_ids})
    for step_id in req.steps:
        if step_id not in known:
            where = ", ".join(w.shown for w in workflows)
            raise UsageError(unknown_step_message(step_id, known, where))
    try:
        selected = select_cases(cases, targets, req.steps, keywords)
    except SelectionError as exc:
        raise UsageError(str(exc)) from None
    if not selected and (req.steps or req.keywords or any(t.narrowed for t in targets)):
        what = " and ".join([f"--step {s}" for s in req.steps]
                            + [f"-k {k}" for k in req.keywords]
                            + [t.shown for t in targets if t.narrowed])
        raise UsageError(f"no fixtures matched {what}")
    out = Selection(workflows, cases, selected)
    if req.last_failed:
        from stepsmith.runner.fixtures import lastfailed

        again = lastfailed.only_failed(selected)
        if again:
            out.notes.append(f"run the {len(again)} fixture(s) that failed last time (--lf)")
            out.selected = again
        else:
            out.notes.append(f"no previously failed fixtures: running all {len(selected)} "
                             "(--lf)")
    elif req.failed_first:
        from stepsmith.runner.fixtures import lastfailed

        first = lastfailed.only_failed(selected)
        if first:
            out.notes.append(f"run the {len(first)} fixture(s) that failed last time first "
                             "(--ff)")
            out.selected = first + [c for c in selected if c not in first]
    if req.stepwise or req.stepwise_skip or req.stepwise_reset:
        from stepsmith.runner.fixtures import stepwise

        out.selected, out.stepwise = stepwise.plan(out.selected, skip=req.stepwise_skip,
                                                   reset=req.stepwise_reset)
        out.notes.append(f"stepwise: {out.stepwise.note}")
    if req.shard is not None:
        from stepsmith.runner.fixtures import shard

        k, n = req.shard
        durations = shard.known_durations(out.selected, req.durations_path)
        total = len(out.selected)
        out.selected = shard.select_shard(out.selected, k, n, durations)
        out.notes.append(f"shard {k}/{n}: {len(out.selected)} of {total} fixture(s) "
                         f"({'balanced by last durations' if durations else 'no durations yet'})")
    return out


def probe_sandbox_ahead() -> None:
    """Start the sandbox probe (a real sandbox run, ~0.1 s of bwrap and interpreter start) in
    the background: it overlaps loading and checking the workflows, and `ensure_sandbox`
    then waits for its answer (sandbox_available probes once per process)."""
    import contextlib
    import threading

    from stepsmith.runner.fixtures.invoke import sandbox_status

    def probe() -> None:
        with contextlib.suppress(Exception):  # ensure_sandbox asks again and reports it
            sandbox_status()

    threading.Thread(target=probe, name="stepsmith-probe", daemon=True).start()


def ensure_sandbox(cases: list[Case]) -> None:
    """SandboxUnavailable when any of `cases` would execute step code and cannot."""
    from stepsmith.runner.fixtures.invoke import sandbox_status

    if not any(c.fixture is not None for c in cases):
        return
    ok, why = sandbox_status()
    if not ok:
        raise SandboxUnavailable(f"the sandbox is unavailable: {why}")


def run(selection: Selection, req: SuiteRequest,
        on_done: Callable[[CaseResult], None] | None = None, stop=None) -> SuiteOutcome:
    """Run the selected fixtures (in parallel sandboxes), then the fixture loop."""
    from stepsmith.runner.fixtures import lastfailed
    from stepsmith.runner.fixtures.suite import run_cases

    ensure_sandbox(selection.selected)
    maxfail = req.maxfail
    if selection.stepwise is not None:
        from stepsmith.runner.fixtures import stepwise

        sw = stepwise.max_failures(selection.stepwise)
        maxfail = min(maxfail, sw) if maxfail else sw
    t0 = time.perf_counter()
    results = run_cases(selection.selected, jobs=req.jobs, live=req.live, on_done=on_done,
                        maxfail=maxfail, coverage=req.coverage, repeat=req.repeat,
                        stop=stop)
    seconds = time.perf_counter() - t0
    lastfailed.update(results)
    if selection.stepwise is not None:
        stepwise.finish(selection.stepwise, results)
    from stepsmith.runner.fixtures import shard

    if req.store_durations or (req.store_durations is None and req.shard is None):
        # the shards of one matrix must all see the same durations: a shard never writes them
        shard.record(results, req.durations_path)
    loop = after_run(results, selection.workflows, update=req.update, strict=req.strict,
                     ci=req.ci)
    return SuiteOutcome(selection, results, seconds, loop, traced=req.coverage)


def after_run(results, workflows, *, update: bool = False, strict: bool = False,
              ci: bool = False) -> LoopReport:
    """Write the pending changes of failed fixtures (drop those of passing ones), accept them
    with `update`, and find stale wired fixtures (SF001). `ci` (without `update`): write
    none, count them (a pending change is for a person to review, not for a CI runner)."""
    from stepsmith.runner.app import fixture_loop as loop
    from stepsmith.runner.fixtures import pending
    from stepsmith.runner.fixtures.stale import stale_fixtures

    report = LoopReport(strict=strict, update=update)
    if ci and not update:
        report.ci_not_written = sum(r.outcome == "failed" and r.acceptable for r in results)
        report.stale = stale_fixtures([r.case for r in results])
        return report
    report.written, report.problems = pending.sync(results)
    if update:
        shown = {w.dir: w.shown for w in workflows}
        for c in report.written:
            name = shown.get(c.workflow_dir, c.workflow_dir.name)
            item = loop.Item(f"{name}::{c.step_id}::{c.case}", name, c.workflow_dir, change=c)
            report.decisions.append(loop.accept(item))
    report.stale = stale_fixtures([r.case for r in results])
    return report


def run_one(case: Case, *, live: bool = False) -> CaseResult:
    """One fixture (the pytest plugin's item); SandboxUnavailable rather than unsandboxed."""
    from stepsmith.runner.fixtures.suite import run_case

    ensure_sandbox([case])
    return run_case(case, live=live)


def workflow_items(manifest, *, base=None, shown: str | None = None) -> list[Case]:
    """The fixtures of one workflow, as collected items (pytest plugin)."""
    from stepsmith.runner.fixtures.invoke import load_workflow
    from stepsmith.runner.fixtures.suite import workflow_cases

    lw = load_workflow(manifest, base=base)
    if shown is not None:
        lw.shown = shown
    return workflow_cases(lw)
