"""The mutants' rounds (runner/app/mutants.py's judge): which fixture runs which mutant next,
and what a run's result says about the mutant.

The first round runs each mutant's likeliest killer (the fixture reaching the most
statements); the second, every fixture left for the mutants the first did not notice. Cached
verdicts are taken first. The mutants are shared out to a few sandboxes (app/mutant_judge.py:
forked children of one sandbox, about one per CPU, at most BATCH runs a batch), each
judging its group through both rounds. A mutant's verdict is that of its fixtures in order, up to the first that notices it,
whichever round ran them; a run past that one is cached as the verdict it is.
"""

from __future__ import annotations

import ast
import dataclasses
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from stepsmith.runner.app import mutant_judge  # (its run_batch late: tests wrap it)
from stepsmith.runner.app.mutant_select import closure_text
from stepsmith.runner.mutants.verdicts import LIMITS, NOT_REACHED, MutantRecord, MutantsReport

if TYPE_CHECKING:
    from stepsmith.runner.app.mutant_judge import Servers
    from stepsmith.runner.app.mutants import _File
    from stepsmith.runner.app.suite import Case
    from stepsmith.runner.app.workflow import LoadedWorkflow
    from stepsmith.runner.mutants.cache import Cache
    from stepsmith.runner.mutants.generate import Mutant

BATCH = 32  # runs a batch holds at most: more sandboxes overlap the parent's own work


class Rounds:
    """Mixed into the judge, which provides: files' cases, `ran` and `passing` (the
    baseline), `cache`, `_key`, `_map`, `jobs`, `stop`, `lock`, `report`, `on_progress`."""

    ran: dict[str, frozenset[int]]
    passing: dict[str, float]
    cache: Cache
    jobs: int
    stop: threading.Event
    lock: threading.Lock
    report: MutantsReport
    servers: Servers
    on_progress: Callable[[int, int], None] | None
    _key: Callable[[str, _File, Case, str], str]
    _map: Callable[[Callable[[Any], Any], list], list]

    def mutate(self, work: list) -> None:
        """Judge the planned mutants against the fixtures the baseline says reach them, in at
        most two rounds (see the module's text)."""
        run_batch = mutant_judge.run_batch
        total, done = len(work), [0]

        def finish(record: MutantRecord | None) -> None:
            with self.lock:
                if record is not None:
                    self.report.mutants.append(record)
                done[0] += 1
                n = done[0]
            if self.on_progress is not None:
                self.on_progress(n, total)

        states = [self._start(*item) for item in work]
        active = []
        for state in states:
            self._answer_cached(state)
            if state.done:
                finish(state.rec)
            else:
                active.append(state)
        if active and not self.stop.is_set():
            # each group of mutants is judged to the end on one server, its second round
            # right after its first (no waiting for the other groups' first rounds)
            self._map(lambda group: self._judge(run_batch, group), self._groups(active))
        for state in active:
            finish(state.rec if state.done and not self.stop.is_set() else None)

    def _judge(self, run_batch, group: list[_Mutant]) -> None:
        """The two rounds of one group of mutants (see the module's text)."""
        for _round in range(2):
            if _round:
                for state in group:
                    self._answer_cached(state)
            group = [s for s in group if not s.done]
            if not group or self.stop.is_set():
                return
            # (one round of every fixture saves a sandbox start-up on the editor's latency but
            # runs nearly twice as many: measured slower on a loaded 2-CPU machine)
            runs = sorted(((s, i) for s in group
                           for i in range(s.next, len(s.cases) if _round else s.next + 1)),
                          key=lambda r: r[0].cases[r[1]].id)
            got = {}
            for at in range(0, len(runs), BATCH):
                b = runs[at:at + BATCH]
                got.update({(id(s), i): r for (s, i), r in zip(
                    b, self._batch(run_batch, b), strict=True)})
                if self.stop.is_set():
                    return
            for state in group:
                while not state.done and (id(state), state.next) in got:
                    self._answer(state, got.pop((id(state), state.next)))
            for (sid, i), r in got.items():  # run past the killer: still an honest verdict
                state = next(s for s in group if id(s) == sid)
                self._remember(state, i, r)

    def _batch(self, run_batch, b: list) -> list:
        with mutant_judge.serving(self.servers):  # both rounds' batches share the run's fork servers
            return run_batch([(s.cases[i], s.case(i)) for s, i in b])

    def sandboxes(self) -> int:
        """How many sandboxes a run shares out its mutants to (see _groups)."""
        return max(1, min(self.jobs, os.cpu_count() or 1))

    def _groups(self, active: list[_Mutant]) -> list[list[_Mutant]]:
        """The mutants per shared sandbox: about as many sandboxes as CPUs (each sandbox's
        start-up is paid once for all its runs; a forked run is CPU work, not waiting), more
        when their first round passes BATCH runs a sandbox; mutants whose first fixture is
        the same together as far as they go."""
        active = sorted(active, key=lambda s: s.cases[s.next].id)
        n = max(self.sandboxes(), -(-len(active) // BATCH))
        size = -(-len(active) // n)
        return [active[at:at + size] for at in range(0, len(active), size)]

    def _start(self, f: _File, m: Mutant, steps: list, statement: int,
               tree: ast.Module | None = None, codes: dict | None = None) -> _Mutant:
        """`tree`, `codes`: the mutant's, when worked out already (see _Mutant)."""
        e, mu = m.mutation.edit, m.mutation
        rec = MutantRecord(f.shown, e.line, e.column, e.end_line, e.end_column, mu.operator,
                           mu.original, mu.replacement, steps=[s.id for s in steps],
                           hint=mu.hint)
        ids = {s.id for s in steps}
        cases = [c for c in f.cases if c.step_id in ids and c.id in self.passing
                 and statement in self.ran[c.id]]
        if not cases:
            rec.note = NOT_REACHED
            rec.hint = f"no fixture runs line {e.line}: record one that reaches it"
            return _Mutant(f, m, rec, [], done=True)
        # the widest-reaching fixture first (the likeliest to notice), then by id: the same
        # killer every time
        cases.sort(key=lambda c: (-len(self.ran[c.id]), c.id))
        lw = dataclasses.replace(f.lw, texts={**f.lw.texts, f.path: m.text})
        return _Mutant(f, m, rec, cases, lw=lw, tree=tree, codes=codes or {})

    def _case_key(self, state: _Mutant, i: int) -> str:
        c = state.cases[i]
        if state.tree is None:
            state.tree = ast.parse(state.m.text)
        return self._mutant_key(state.f, state.m.text, state.tree, c, state.codes)

    def _mutant_key(self, f: _File, text: str, tree: ast.Module, c: Case,
                    codes: dict) -> str:
        """The cache key of a verdict of fixture `c` on a mutant (`text`, its `tree`);
        `codes`: the mutant's closures' text so far, by step function."""
        fn = c.workflow.known_step(c.step_id).code_ref.function
        if fn not in codes:
            codes[fn] = closure_text(text, tree, fn, with_lines=False)
        return self._key("mutant", f, c, codes[fn])

    def _answer_cached(self, state: _Mutant) -> None:
        """Take the cached verdicts of the mutant's next fixtures, as far as there are."""
        while not state.done:
            k = self._case_key(state, state.next)
            hit = self.cache.get(k)
            if hit is None:
                return
            # a verdict this run made (on a guessed baseline, judged again) is a run of it
            state.rec.cached += not self.cache.mine(k)
            self._verdict(state, hit.get("verdict"), hit.get("status"))

    def _remember(self, state: _Mutant, i: int, r) -> tuple[str, str | None]:
        """A fixture run's verdict on the mutant, cached unless the machine's load may have
        decided it (a wall limit) or it could not run."""
        status = (r.result or {}).get("status")
        verdict = {"passed": "passed", "failed": "noticed"}.get(r.outcome, "error")
        if verdict != "error" and status != "wall_limit":
            self.cache.put(self._case_key(state, i), {"verdict": verdict, "status": status})
        return verdict, status

    def _answer(self, state: _Mutant, r) -> None:
        rec = state.rec
        rec.duration_ms += r.duration_ms
        verdict, status = self._remember(state, state.next, r)
        if verdict == "error":
            rec.status, rec.note = "error", "; ".join(r.messages[:2]) or r.outcome
            rec.fixtures_run += 1
            state.done = True
            return
        self._verdict(state, verdict, status)

    def _verdict(self, state: _Mutant, verdict, status) -> None:
        rec = state.rec
        rec.fixtures_run += 1
        if verdict == "noticed":
            rec.killed_by = state.cases[state.next].id
            if status in LIMITS:
                rec.status, rec.note = "timeout", f"{status}: counted as killed"
            else:
                rec.status = "killed"
            state.done = True
            return
        state.next += 1
        state.done = state.next >= len(state.cases)


@dataclass
class _Mutant:
    """One mutant being judged: its record, the fixtures in the order they judge it, the
    next one whose verdict counts."""

    f: _File
    m: Mutant
    rec: MutantRecord
    cases: list[Case]
    lw: LoadedWorkflow | None = None  # the mutant's workflow (its text in `texts`)
    next: int = 0
    done: bool = False
    tree: ast.Module | None = None
    codes: dict = field(default_factory=dict)  # step function -> its closure's text

    def case(self, i: int) -> Case:
        """The i-th fixture, run on the mutant's text."""
        if self.lw is None:  # only a mutant no fixture reaches has none, and it never runs
            raise ValueError(f"{self.rec.path}:{self.rec.line}: the mutant has no workflow")
        return dataclasses.replace(self.cases[i], workflow=self.lw)
