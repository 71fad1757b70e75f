"""The fixture-suite use case, shared by `stepsmith test`, the pytest plugin and the server:
select fixtures (the one discovery, pytest's selection), run them in sandboxes, keep the
fixture loop's books (last failed, pending changes, --update, stale wired fixtures).

Outcomes are typed: each fixture's :class:`CaseResult` keeps its differences as structured
:class:`Difference` records (path, kind, expected, actual); rendering happens at the edge.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from stepsmith.runner.app import case_run, suite
from stepsmith.runner.app.collect import Collection, Selection, SuiteRequest
from stepsmith.runner.app.suite import Case, CaseResult
from stepsmith.runner.app.workflow import load_workflow, sandbox_status, step_code
from stepsmith.runner.display import display_path
from stepsmith.runner.errors import InvokeError, SandboxUnavailable
from stepsmith.runner.fixtures import lastfailed, shard, stepwise

OUTCOMES = ("passed", "recorded", "failed", "error")


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
    waiting: list = field(default_factory=list)  # fixture_loop.Item: left for a person

    def waiting_json(self, shown=str) -> list[dict]:
        """The changes waiting for review; `shown` turns a path into what the edge shows."""
        return [{"id": i.id, "new": i.change.is_new, "source": i.change.source,
                 "pending": shown(i.change.path), "fixture": shown(i.change.fixture_path)}
                for i in self.waiting]

    def to_json(self) -> dict:
        return {"pending": [str(c.path) for c in self.written],
                "waiting_for_review": self.waiting_json(display_path),
                "ci_not_written": self.ci_not_written,
                "pending_problems": self.problems,
                "updated": [d.to_json() for d in self.decisions],
                "stale": [s.to_json() for s in self.stale]}


@dataclass
class SuiteOutcome:
    selection: Selection
    results: list[CaseResult]
    seconds: float  # the session, collection included (pytest's "in X s")
    loop: LoopReport
    traced: bool = False  # run with coverage
    run_seconds: float = 0.0  # from the first fixture's start to the last one's end

    @property
    def ran_nothing(self) -> bool:
        """No fixture was selected to run: not a pass (an edge says so, never "green")."""
        return not self.results

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

        if not self.traced:
            return []
        by_file: dict[str, tuple[str, list, object]] = {}
        for r in self.results:
            if r.coverage is not None and r.code:
                interp = getattr(r.case.workflow.check, "interpreter", None)
                by_file.setdefault(r.code[0], (r.code[1], [], interp))[1].append(
                    (r.case.id, r.coverage))
        for shown, source, interp in self._step_sources():  # as coverage.py reports
            by_file.setdefault(shown, (source, [], interp))  # unimported files
        from stepsmith.runner.coverage.combine import combine  # after the run (see after_run)

        out = []
        for shown in sorted(by_file):
            source, traces, interp = by_file[shown]
            # traces name the manifest's path; a file no fixture ran has none to match
            try:
                fc = combine(traces[0][1].file if traces else shown, source, traces, interp)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                continue  # as coverage.py skips a file it cannot parse (the check names it)
            out.append(dataclasses.replace(fc, file=shown))
        return out

    def _step_sources(self) -> list[tuple[str, str, object]]:
        """(shown path, text, the pinned interpreter) of every step file the selected
        workflows name."""

        out = []
        for lw in self.selection.workflows:
            for step in (lw.workflow.steps if lw.workflow is not None else []):
                if getattr(step, "code_ref", None) is None:
                    continue
                try:
                    code = step_code(lw, step)
                except InvokeError:  # unreadable: the check reported it
                    continue
                out.append((display_path(code.path), code.source,
                            getattr(lw.check, "interpreter", None)))
        return out

    def to_json(self) -> dict:
        executed, ran = self.executed, self.run_seconds
        doc = {
            "results": [r.to_json() for r in self.results],
            "summary": {**self.counts, "total": len(self.results), "not_run": self.not_run,
                        "executed": executed, "seconds": round(self.seconds, 3),
                        "run_seconds": round(ran, 3),
                        "fixtures_per_second": round(executed / ran, 2)
                        if ran > 0 and executed else None},
            "workflows": [{"path": w.shown, "ok": w.ok, "problems": w.error_lines()}
                          for w in self.selection.workflows],
        }
        doc.update(self.loop.to_json())
        sw = self.selection.stepwise
        if sw is not None:  # --sw: what it skipped, and where the next --sw run starts
            doc["stepwise"] = {"note": sw.note, "next_start": sw.start or None}
        if self.traced:
            from stepsmith.runner.coverage import report  # after the run (see after_run)

            doc["coverage"] = report.to_json(self.coverage())
        return doc


def select(req: SuiteRequest) -> Selection:
    """The fixtures the request selects, every workflow loaded; UsageError when it selects
    nothing it named."""

    return Collection(req).whole()


def probe_sandbox_ahead() -> None:
    """Start the sandbox probe (a real sandbox run, ~0.1 s of bwrap and interpreter start) in
    the background: it overlaps loading and checking the workflows, and `ensure_sandbox`
    then waits for its answer (sandbox_available probes once per process)."""

    def probe() -> None:
        with contextlib.suppress(Exception):  # ensure_sandbox asks again and reports it
            sandbox_status()

    threading.Thread(target=probe, name="stepsmith-probe", daemon=True).start()


def ensure_sandbox(cases: list[Case]) -> None:
    """SandboxUnavailable when any of `cases` would execute step code and cannot."""

    if not any(c.fixture is not None for c in cases):
        return
    ok, why = sandbox_status()
    if not ok:
        raise SandboxUnavailable(f"the sandbox is unavailable: {why}")


def run_request(req: SuiteRequest, *, on_selected: Callable[[int, bool], None] | None = None,
                on_done: Callable[[CaseResult], None] | None = None,
                stop=None) -> SuiteOutcome:
    """Collect and run: `stepsmith test` and the MCP run. A request whose selection is final
    per workflow (app/collect.py) starts each workflow's fixtures as soon as it is loaded,
    while the next ones load; any other is collected whole first. `on_selected(n, final)`:
    how many fixtures are selected so far, and whether that is all of them. The outcome's
    `seconds` counts from here, collection included, as pytest's session time does."""

    started = time.perf_counter()
    collection = Collection(req)
    if not collection.streams:
        selection = collection.whole()
        if on_selected:
            on_selected(len(selection.selected), True)
        return run(selection, req, on_done=on_done, stop=stop, started=started)
    first: list[float] = []  # when the first case was handed to the run
    done: list[Selection] = []

    def fed():
        for chosen in collection.each():
            if chosen:
                ensure_sandbox(chosen)  # before the first of them runs (the probe's answer)
                if not first:
                    first.append(time.perf_counter())
            if on_selected:
                on_selected(len(collection.chosen), False)
            yield from chosen
        # every workflow is loaded: nothing selected means nothing ran (UsageError here)
        done.append(collection.finish())
        if on_selected:
            on_selected(len(done[0].selected), True)

    results = _run_cases(fed(), req, on_done, req.maxfail, stop)
    ran = time.perf_counter() - first[0] if first else 0.0
    return _books(done[0], req, results, started, ran)


def run(selection: Selection, req: SuiteRequest,
        on_done: Callable[[CaseResult], None] | None = None, stop=None,
        started: float | None = None) -> SuiteOutcome:
    """Run the selected fixtures (in parallel sandboxes), then the fixture loop. `started`:
    when the session began (its collection), for the outcome's `seconds`."""
    ensure_sandbox(selection.selected)
    maxfail = req.maxfail
    if selection.stepwise is not None:
        sw = stepwise.max_failures(selection.stepwise)
        maxfail = min(maxfail, sw) if maxfail else sw
    t0 = time.perf_counter()
    results = _run_cases(selection.selected, req, on_done, maxfail, stop)
    return _books(selection, req, results, t0 if started is None else started,
                  time.perf_counter() - t0)


def _run_cases(cases, req: SuiteRequest, on_done, maxfail, stop) -> list[CaseResult]:
    return case_run.run_cases(cases, jobs=req.jobs, live=req.live, on_done=on_done,
                              maxfail=maxfail, coverage=req.coverage, repeat=req.repeat,
                              stop=stop)


def _books(selection: Selection, req: SuiteRequest, results: list[CaseResult],
           started: float, ran: float) -> SuiteOutcome:
    """After the run: --lf state, --sw state, durations, then the fixture loop."""

    lastfailed.update(results)
    if selection.stepwise is not None:
        stepwise.finish(selection.stepwise, results)
    if req.store_durations or (req.store_durations is None and req.shard is None):
        # the shards of one matrix must all see the same durations: a shard never writes them
        shard.record(results, req.durations_path)
    loop = after_run(results, selection.workflows, update=req.update, strict=req.strict,
                     ci=req.ci)
    return SuiteOutcome(selection, results, time.perf_counter() - started, loop,
                        traced=req.coverage, run_seconds=ran)


def after_run(results, workflows, *, update: bool = False, strict: bool = False,
              ci: bool = False) -> LoopReport:
    """Write the pending changes of failed fixtures (drop those of passing ones), accept them
    with `update`, and find stale wired fixtures (SF001). `ci` (without `update`): write
    none, count them (a pending change is for a person to review, not for a CI runner).
    What only this needs (the store, the fixture loop) is imported here, after the run:
    `stepsmith test` loads it in the background while the sandboxes run (cli/test.py's
    REPORT_MODULES; bench/cli.py measures the start-up)."""
    from stepsmith.runner.app import fixture_loop as loop
    from stepsmith.runner.app import pending
    from stepsmith.runner.fixtures.stale import stale_fixtures

    report = LoopReport(strict=strict, update=update)
    folders = [(w.shown, w.dir) for w in workflows]
    if ci and not update:
        report.ci_not_written = sum(r.outcome == "failed" and r.acceptable for r in results)
        report.stale = stale_fixtures([r.case for r in results])
        report.waiting = loop.waiting(folders)
        return report
    report.written, report.problems = pending.sync(results)
    if update:
        shown = {w.dir: w.shown for w in workflows}
        for c in report.written:
            name = shown.get(c.workflow_dir, c.workflow_dir.name)
            item = loop.Item(f"{name}::{c.step_id}::{c.case}", name, c.workflow_dir, change=c)
            report.decisions.append(loop.accept(item))
    report.stale = stale_fixtures([r.case for r in results])
    report.waiting = loop.waiting(folders, report.written)
    return report


def run_one(case: Case, *, live: bool = False) -> CaseResult:
    """One fixture (the pytest plugin's item); SandboxUnavailable rather than unsandboxed."""

    ensure_sandbox([case])
    return case_run.run_case(case, live=live)


def workflow_items(manifest, *, base=None, shown: str | None = None) -> list[Case]:
    """The fixtures of one workflow, as collected items (pytest plugin)."""

    lw = load_workflow(manifest, base=base)
    if shown is not None:
        lw.shown = shown
    return suite.workflow_cases(lw)
