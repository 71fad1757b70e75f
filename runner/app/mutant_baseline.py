"""The mutants' baseline (runner/app/mutants.py's judge): every selected fixture once on the
unmutated code, traced: whether it passes (one that fails cannot judge a mutant) and which
statements it runs (only a fixture reaching a mutant's statement can notice it).

It comes from the cache, from the editor's own traced run of the same text and fixture
(`MutantsRequest.ran`), or from runs of its own. The editor's refresh after a save need not
wait for it: given the baseline of its last run (`MutantsRequest.guess`, for a text whose lines
did not move), the judge judges on that guess while the real baseline is worked out, then
compares the two (`confirm`). Only the real baseline makes verdicts: equal, the verdicts made
on the guess are the ones the real one gives (the baseline decides nothing else); different
(a fixture now fails, or runs other statements), every mutant is judged again on the real one.
"""

from __future__ import annotations

import ast
import dataclasses
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from stepsmith.runner.app import case_run  # (run_cases late: tests wrap it)
from stepsmith.runner.app.mutant_select import closure_text
from stepsmith.runner.coverage.static import analyse
from stepsmith.runner.mutants.verdicts import MutantsReport

if TYPE_CHECKING:
    from stepsmith.runner.app.mutants import MutantsRequest, _File
    from stepsmith.runner.app.suite import Case
    from stepsmith.runner.mutants.cache import Cache


def _where(case) -> tuple[str, str, str]:
    """A fixture as the editor's runs and guesses name it: (manifest, step id, case)."""
    return (str(case.workflow.manifest_path.resolve()), case.step_id, case.case)


class Baseline:
    """Mixed into the judge, which provides: `files`, `req`, `cache`, `report`, `stop`,
    `jobs`, `group`, `pool`, `_key`; this sets `ran` and `passing`."""

    files: list[_File]
    req: MutantsRequest
    cache: Cache
    report: MutantsReport
    stop: threading.Event
    jobs: int
    group: Any
    pool: Any
    ran: dict[str, frozenset[int]]
    passing: dict[str, float]
    _key: Callable[..., str]

    def baseline(self) -> bool:
        """The cached answers taken, then the rest: judged on the guess when it covers every
        fixture left (True: `settle` and `confirm` to follow), else run (or taken from the
        editor's run) now."""
        self._need, self._keys = [], {}
        for f in self.files:
            tree = ast.parse(f.text)
            for c in f.cases:
                fn = c.workflow.step(c.step_id).code_ref.function
                self._keys[c.id] = (f, self._key("baseline", f, c, closure_text(
                    f.text, tree, fn, with_lines=True)))
        self.cache.prefetch(k for _f, k in self._keys.values())
        for c in (c for f in self.files for c in f.cases):
            hit = self.cache.get(self._keys[c.id][1])
            if hit is None:
                self._need.append(c)
            else:
                self._baseline_answer(c, hit)
        guess = self._guessed(self._need)
        if guess:
            for c, lines in guess:
                self.ran[c.id], self.passing[c.id] = lines, 0.0
            self.report.guessed = len(guess)
            return True
        self._apply(self.settle())
        return False

    def _guessed(self, need: list) -> list[tuple[Case, frozenset[int]]]:
        """(fixture, statements) from the guess for every fixture in `need`, or [] unless it
        has them all: the same fixture bytes, passing, on a text with as many lines."""
        if not need or not self.req.guess:
            return []
        texts = {c.id: f.text for f in self.files for c in f.cases}
        out = []
        for c in need:
            text, sha, lines = self.req.guess.get(_where(c), (None, None, None))
            if (text is None or not sha or sha != c.fixture.sha256
                    or text.count("\n") != texts[c.id].count("\n")):
                return []
            out.append((c, frozenset(lines)))
        return out

    def settle(self) -> dict[str, tuple[Case, dict]]:
        """The real baseline of the fixtures the cache does not answer: case id -> (case,
        answer) (the editor's runs of this text, else runs of its own); passing answers
        cached."""
        reused, need = self._ran(self._need)
        results = case_run.run_cases(need, jobs=self.jobs, coverage=True, stop=self.stop,
                                     group=self.group, executor=self.pool)
        self.report.baseline_runs = len(results)
        answers: dict[str, tuple[Case, dict]] = {}
        for r in reused + results:
            f, k = self._keys[r.case.id]
            lines: list[int] = []
            if r.coverage is not None:
                lines = sorted(analyse(f.text).translate(r.coverage.lines, r.coverage.arcs,
                                                         r.coverage.truncated)[0])
            why = (r.failure_text() or "").splitlines()
            answer = {"outcome": r.outcome, "lines": lines, "ms": r.duration_ms,
                      "why": why[0] if why else ""}
            if r.outcome == "passed":  # a failure may be the machine's (a wall limit): ask again
                self.cache.put(k, answer)
            answers[r.case.id] = (r.case, answer)
        return answers

    def confirm(self, answers: dict) -> bool:
        """The real baseline in place of the guess; True when they are the same for every
        guessed fixture (each passing, with the very statements guessed)."""
        same = all(
            c.id in answers and answers[c.id][1]["outcome"] == "passed"
            and frozenset(int(n) for n in answers[c.id][1]["lines"]) == self.ran.get(c.id)
            for c in self._need)
        for c in self._need:
            self.ran.pop(c.id, None)
            self.passing.pop(c.id, None)
        self._apply(answers)
        return same

    def _apply(self, answers: dict) -> None:
        for case, answer in answers.values():
            self._baseline_answer(case, answer)

    def _ran(self, need: list) -> tuple[list, list]:
        """(the editor's runs of these fixtures that are their baseline, the fixtures left to
        run): a run counts when it executed this very text of the step file and this very
        fixture file (its bytes' digest), and was traced."""
        if not need or self.req.ran is None:
            return [], need
        got = self.req.ran()
        texts = {c.id: f.text for f in self.files for c in f.cases}
        reused, left = [], []
        for c in need:
            text, lc = got.get(_where(c), (None, None))
            fx = getattr(lc.case, "fixture", None) if lc is not None else None
            if (fx is not None and text == texts[c.id] and lc.coverage is not None
                    and fx.sha256 and fx.sha256 == c.fixture.sha256):
                reused.append(dataclasses.replace(lc, case=c))
            else:
                left.append(c)
        return reused, left

    def _baseline_answer(self, case, answer: dict) -> None:
        if answer.get("outcome") != "passed":
            why = f" ({answer['why']})" if answer.get("why") else ""
            self.report.notes.append(
                f"{case.id}: {answer.get('outcome')} on the unmutated code{why}, so it cannot "
                "judge a mutant; left out (fix it, or review its pending change)")
            return
        self.ran[case.id] = frozenset(int(n) for n in answer.get("lines", ()))
        self.passing[case.id] = float(answer.get("ms") or 0.0)
        f = self._keys[case.id][0]
        self.report.baselines[_where(case)] = (f.text, case.fixture.sha256, self.ran[case.id])
