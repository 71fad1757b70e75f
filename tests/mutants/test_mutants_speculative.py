"""The editor's refresh judges before its baseline is known: it takes the baseline of its last
run (`MutantsRequest.guess`), and its verdicts stand only when the real baseline (the fixtures'
traced runs on the new text) turns out the same; otherwise every mutant is judged again on the
real one. Either way the report is the one a run without a guess gives."""

import threading

import pytest
from mutants_kit import APPROVE_STEP, write_pay

pytestmark = pytest.mark.usefixtures("sandbox")


def _request(path, **kw):
    from stepsmith.runner.app.mutants import MutantsRequest

    return MutantsRequest(paths=[str(path)], **kw)


def _verdicts(report) -> list:
    return sorted((m.line, m.column, m.operator, m.replacement, m.status, m.killed_by)
                  for m in report.mutants)


@pytest.fixture
def pay(tmp_path):
    return write_pay(tmp_path, spin=False)


def _first(pay):
    """A first run: its report's baselines are the next run's guess."""
    from stepsmith.runner.app.mutants import run_mutants

    rep = run_mutants(_request(pay / "steps/approve.py"))
    assert len(rep.baselines) == 2 and rep.guessed == 0
    return rep


def test_a_right_guess_judges_before_the_baseline_ends(pay, monkeypatch):
    from stepsmith.runner.app import case_run, mutant_judge
    from stepsmith.runner.app.mutants import run_mutants

    first = _first(pay)
    step = pay / "steps/approve.py"
    # a new tree, the same lines and behaviour: nothing cached, the guess is right
    step.write_text(APPROVE_STEP.replace("Decimal(limit)", "Decimal(str(limit))"))
    judged = threading.Event()
    real_batch, real_cases = mutant_judge.run_batch, case_run.run_cases

    def batch(runs):
        judged.set()
        return real_batch(runs)

    def cases(*a, **kw):  # the baseline's runs end only once a mutant was judged
        judged.wait(60)
        return real_cases(*a, **kw)

    monkeypatch.setattr(mutant_judge, "run_batch", batch)
    monkeypatch.setattr(case_run, "run_cases", cases)
    rep = run_mutants(_request(step, guess=first.baselines))
    assert judged.is_set() and rep.guessed == 2 and not rep.rejudged
    assert rep.baseline_runs == 2  # the guess was checked against real runs
    monkeypatch.undo()
    fresh = run_mutants(_request(step, cache=False))
    assert _verdicts(rep) == _verdicts(fresh) and rep.notes == fresh.notes


def test_a_stale_guess_is_never_a_verdict(pay):
    """The edit makes `large` fail on the unmutated code, lines unmoved: judged on the guess
    (both fixtures passing), `large` would kill every mutant it runs."""
    from stepsmith.runner.app.mutants import run_mutants

    first = _first(pay)
    step = pay / "steps/approve.py"
    step.write_text(APPROVE_STEP.replace("limit = Decimal(limit)",
                                         "limit = Decimal(limit) * 2"))
    rep = run_mutants(_request(step, guess=first.baselines))
    assert rep.guessed == 2 and rep.rejudged
    # its verdicts are runs of this run (some made before the real baseline was known), not
    # answers of the cache
    assert all(m.cached == 0 for m in rep.mutants) and rep.summary()["fixture_runs"] > 0
    fresh = run_mutants(_request(step, cache=False))
    assert any("large" in n and "left out" in n for n in fresh.notes)
    assert not any(m.killed_by and "large" in m.killed_by for m in fresh.mutants)
    assert _verdicts(rep) == _verdicts(fresh) and rep.notes == fresh.notes


def test_a_guess_with_other_lines_is_checked_too(pay):
    """A guess whose statement lines are not the fixtures' (here: none reached) is judged
    again on the real ones."""
    from stepsmith.runner.app.mutants import run_mutants

    first = _first(pay)
    step = pay / "steps/approve.py"
    step.write_text(APPROVE_STEP.replace("Decimal(limit)", "Decimal(str(limit))"))
    wrong = {k: (text, sha, frozenset()) for k, (text, sha, _lines) in first.baselines.items()}
    rep = run_mutants(_request(step, guess=wrong))
    assert rep.guessed == 2 and rep.rejudged
    fresh = run_mutants(_request(step, cache=False))
    assert _verdicts(rep) == _verdicts(fresh)
    assert {m.status for m in rep.mutants} != {"survived"}  # reached and killed, not "no fixture"


def test_no_guess_for_moved_lines_or_other_fixture_bytes(pay):
    from stepsmith.runner.app.mutants import run_mutants

    first = _first(pay)
    step = pay / "steps/approve.py"
    step.write_text("\n" + APPROVE_STEP.replace("Decimal(limit)", "Decimal(str(limit))"))
    assert run_mutants(_request(step, guess=first.baselines)).guessed == 0
    step.write_text(APPROVE_STEP.replace("Decimal(limit)", "Decimal(str(str(limit)))"))
    other = {k: (text, "0" * 64, lines) for k, (text, _sha, lines) in first.baselines.items()}
    assert run_mutants(_request(step, guess=other)).guessed == 0
