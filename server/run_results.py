"""The last fixture-run results the editor shows: per step (code lens counts), per fixture
(Test Explorer status) and per file (diagnostics on the fixture's `"expected"` key and on the
step function's `def`). Plain data in runner coordinates; publish.py converts and sends.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from stepsmith.runner.problems import Problem, Span
from stepsmith.server.convert import to_diagnostic
from stepsmith.server.workspace import uri_to_path

if TYPE_CHECKING:
    from stepsmith.runner.workspace.snapshot import WorkspaceSnapshot
    from stepsmith.server.run_replies import RunReply

FIXTURE_SOURCE = "stepsmith-fixtures"
BAD = ("failed", "error")


@dataclass
class StepRun:
    results: list[RunReply] = field(default_factory=list)

    @property
    def counts(self) -> tuple[int, int]:
        bad = sum(1 for r in self.results if r.outcome in BAD and not r.blocked)
        return len(self.results) - bad, bad


def anchor_in(lines) -> Span:
    """Where a fixture's result goes on `lines`: the one JSON locator's result target (its own
    top-level `"expected"` key, never an input named so; else the first character)."""
    from stepsmith.runner.fixtures.jsonpos import result_target

    return result_target("".join(lines))


class RunResults:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.step_runs: dict[tuple[str, str], StepRun] = {}  # (manifest path, step id)
        self.fixture_status: dict[str, str] = {}  # fixture path -> last status
        self.problems: dict[str, list[Problem]] = {}  # path -> fixture-result problems

    def problems_of(self, path: str) -> list[Problem]:
        return self.problems.get(path) or []

    def step_run(self, manifest_path: str, step_id: str) -> StepRun | None:
        return self.step_runs.get((manifest_path, step_id))

    def status_of(self, fixture_path: str) -> str | None:
        return self.fixture_status.get(fixture_path)

    def fixture_diagnostics(self, path: str, lines, encoding: str,
                            rule_docs: object = None) -> list[dict]:
        """A fixture file's result diagnostics, positioned on `lines` (the text they are
        published with: the open buffer's, or the disk's)."""
        probs = self.problems_of(path)
        if not probs:
            return []
        span = anchor_in(lines)
        return [to_diagnostic(Problem(code=p.code, message=p.message, span=span, step=p.step),
                              lines, encoding, source=FIXTURE_SOURCE, rule_docs=rule_docs)
                for p in probs]

    def finish(self, ws: WorkspaceSnapshot, manifest_path: str, step_id: str,
               results: list[RunReply],
               only: str | None) -> list[str]:
        """(run pool: reads and positions on the disk) Record a run's results; returns the
        paths whose fixture problems changed."""
        key = (manifest_path, step_id)
        run = self.step_runs.setdefault(key, StepRun())
        if only is None:
            run.results = results
        else:
            by = {r.uri: r for r in run.results}
            for r in results:
                by[r.uri] = r
            run.results = list(by.values())
        changed = []
        for r in results:
            fp = uri_to_path(r.uri) if r.uri else None
            if not fp:
                continue
            self.fixture_status[fp] = r.outcome
            probs = []
            if r.outcome in BAD and not r.blocked:
                msg = f"fixture {r.fixture} {r.outcome}"
                if r.message:
                    msg += f": {r.message}"
                if r.diff:
                    msg += "\n" + r.diff
                # positioned when published (anchor_in on the text it is published with)
                probs.append(Problem(code="fixture-" + r.outcome, message=msg,
                                     span=Span(1, 0, 1, 1), step=step_id))
            self.problems[fp] = probs
            changed.append(fp)
        for st in ws.steps_of(manifest_path):
            if st.id != step_id or st.target is None or st.code is None:
                continue
            path = st.target
            probs = [p for p in self.problems.get(path, []) if p.step != step_id]
            ok, bad = run.counts
            loc = ws.function_location(path, st.code.function)
            found = any(f.name == st.code.function for f in ws.functions(path))
            if bad and loc is not None and found:
                names = ", ".join(r.fixture for r in run.results
                                  if r.outcome in BAD and not r.blocked)
                probs.append(Problem(code="fixture-failed",
                                     message=f"✗ {bad} of {len(run.results)} fixture(s) of step "
                                     f"{step_id} failed: {names}", span=loc.span, step=step_id))
            self.problems[path] = probs
            changed.append(path)
        return list(dict.fromkeys(changed))
