"""Collecting what a suite request selects, one workflow at a time: the one discovery, then
pytest's selection (runner/app/selection.py).

`stepsmith test` starts the first workflow's fixtures while the next ones load (issue 20,
start-up: loading and checking 20 workflows and their 280 fixtures took about a tenth of the
run before any sandbox started). That is only sound when each workflow's selection is final
as soon as that workflow is loaded (`Collection.streams`): `--step` must name a step of some
workflow (known once all are loaded), and `--lf`, `--ff`, `--sw`, `--shard` order or cut the
whole selection. Those requests are collected whole before anything runs; both ways select
the same fixtures in the same order (tests/cli_run/test_cli_test_streaming.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from stepsmith.runner.app import suite
from stepsmith.runner.app.selection import (
    compile_keywords,
    manifests_of,
    parse_target,
    select_cases,
)
from stepsmith.runner.app.suite import Case
from stepsmith.runner.app.workflow import LoadedWorkflow, unknown_step_message
from stepsmith.runner.errors import UsageError
from stepsmith.runner.fixtures import lastfailed, shard, stepwise

if TYPE_CHECKING:
    from stepsmith.runner.fixtures.stepwise import Plan


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
    workflows: list[LoadedWorkflow]
    cases: list[Case]  # every fixture of those workflows
    selected: list[Case]
    notes: list[str] = field(default_factory=list)  # what --lf did
    stepwise: Plan | None = None  # under --sw

    @property
    def without_fixtures(self) -> set[str]:
        having = {c.workflow.shown for c in self.cases}
        return {w.shown for w in self.workflows if w.shown not in having}



class Collection:
    """The request's targets and manifests, checked up front (UsageError); `each()` loads the
    workflows in order and yields each one's selected cases; `finish()` then applies what
    needs every workflow and returns the Selection."""

    def __init__(self, req) -> None:
        if req.jobs is not None and req.jobs < 1:
            raise UsageError("-j must be at least 1")
        if req.maxfail is not None and req.maxfail < 1:
            raise UsageError("--maxfail must be at least 1")
        if req.repeat < 1:
            raise UsageError("--repeat must be at least 1")
        self.targets = [parse_target(p) for p in req.paths]
        self.keywords = compile_keywords(req.keywords)
        self.req = req
        self.manifests = manifests_of(self.targets)
        if not self.manifests:
            raise UsageError(f"no workflow manifests under {' '.join(req.paths)}")
        self.workflows: list = []  # LoadedWorkflow, in load order
        self.cases: list = []  # every fixture of those workflows
        self.chosen: list = []  # the ones the targets, --step and -k select

    @property
    def streams(self) -> bool:
        """Each workflow's selection is final once it is loaded (see the module's text)."""
        r = self.req
        return not (r.steps or r.last_failed or r.failed_first or r.stepwise
                    or r.stepwise_skip or r.stepwise_reset or r.shard is not None)

    def each(self) -> Iterator[list]:
        for manifest in self.manifests:
            lw, cases = suite.load_one(manifest)  # InvokeError (a UsageError) for no manifest
            self.workflows.append(lw)
            self.cases.extend(cases)
            chosen = select_cases(cases, self.targets, self.req.steps, self.keywords)
            self.chosen.extend(chosen)
            yield chosen

    def whole(self):
        """Every workflow loaded, then `finish()`: the Selection."""
        for _ in self.each():
            pass
        return self.finish()

    def finish(self):
        """The Selection (every workflow loaded): UsageError when it selects nothing it named;
        then --lf / --ff / --sw / --shard."""

        req = self.req
        known = sorted({s for w in self.workflows for s in w.step_ids})
        for step_id in req.steps:
            if step_id not in known:
                where = ", ".join(w.shown for w in self.workflows)
                raise UsageError(unknown_step_message(step_id, known, where))
        selected = self.chosen
        if not selected and (req.steps or req.keywords or any(t.narrowed for t in self.targets)):
            what = " and ".join([f"--step {s}" for s in req.steps]
                                + [f"-k {k}" for k in req.keywords]
                                + [t.shown for t in self.targets if t.narrowed])
            raise UsageError(f"no fixtures matched {what}")
        out = Selection(self.workflows, self.cases, list(selected))
        if req.last_failed:
            again = lastfailed.only_failed(selected)
            if again:
                out.notes.append(f"run the {len(again)} fixture(s) that failed last time (--lf)")
                out.selected = again
            else:
                out.notes.append(f"no previously failed fixtures: running all {len(selected)} "
                                 "(--lf)")
        elif req.failed_first:
            first = lastfailed.only_failed(selected)
            if first:
                out.notes.append(f"run the {len(first)} fixture(s) that failed last time first "
                                 "(--ff)")
                out.selected = first + [c for c in selected if c not in first]
        if req.stepwise or req.stepwise_skip or req.stepwise_reset:
            out.selected, out.stepwise = stepwise.plan(out.selected, skip=req.stepwise_skip,
                                                       reset=req.stepwise_reset)
            out.notes.append(f"stepwise: {out.stepwise.note}")
        if req.shard is not None:
            k, n = req.shard
            durations = shard.known_durations(out.selected, req.durations_path)
            total = len(out.selected)
            out.selected = shard.select_shard(out.selected, k, n, durations)
            out.notes.append(f"shard {k}/{n}: {len(out.selected)} of {total} fixture(s) "
                             f"({'balanced by last durations' if durations else 'no durations yet'})")
        return out
