"""Mutants judged in shared sandboxes (app/mutant_judge.py, sandbox/forks.py): a mutant that loops
or allocates is stopped by a `test` run's limits inside its forked child, and a mutant never
sees state another one left (each child starts from the fork server's state)."""

import json
import shutil

import pytest

pytestmark = pytest.mark.usefixtures("sandbox")

AT = "2026-12-01T07:00:00+00:00"
SUM = '''\
def total(n):
    i = 0
    acc = 0
    while i < n:
        acc = acc + i
        i = i + 1
    return {"acc": acc}
'''
BLOCK = '''\
def block(n):
    cells = [0] * (n - 999999000)
    return {"cells": len(cells)}
'''
TALLY = '''\
from decimal import Decimal, getcontext


def tally(x):
    third = str(Decimal(1) / Decimal(3))
    getcontext().prec = 3
    label = "big" if x > 10 else "small"
    return {"third": third, "label": label}
'''


def _step(sid, path, fn, inputs):
    return {"id": sid, "explanation": f"{sid}.", "code": f"steps/{path}:{fn}",
            "inputs": {k: "sources.numbers" for k in inputs}}


def _fixture(inputs, output):
    return {"inputs": inputs, "evaluation_time": AT,
            "expected": {"output": output, "effects": []}}


@pytest.fixture
def sandboxes(monkeypatch):
    """The sandboxes started: (fork server?, command)."""
    from stepsmith.runner.sandbox import forks, process

    started = []
    real = process.supervise

    def counting(cmd, *a, **kw):
        started.append(forks.FORK_BOOTSTRAP in cmd)
        return real(cmd, *a, **kw)

    monkeypatch.setattr(process, "supervise", counting)
    return started


@pytest.fixture
def results(monkeypatch):
    """Every mutant run's CaseResult, as the judge saw it."""
    from stepsmith.runner.app import mutant_judge as judge

    seen = []
    real = judge.run_batch

    def keep(runs):
        out = real(runs)
        seen.extend(out)
        return out

    monkeypatch.setattr(judge, "run_batch", keep)
    return seen


def _run(paths, **kw):
    from stepsmith.runner.app.mutants import MutantsRequest, run_mutants

    return run_mutants(MutantsRequest(paths=paths, cache=False, **kw))


def test_looping_and_allocating_mutants_meet_the_limits_in_their_forked_child(
        kit, tmp_path, monkeypatch, sandboxes, results):
    monkeypatch.chdir(tmp_path)
    kit.write_workflow(tmp_path / "wf", kit.demo_manifest(steps=[
        _step("total", "total.py", "total", ["n"]), _step("block", "block.py", "block", ["n"])]),
        {"steps/total.py": SUM, "steps/block.py": BLOCK},
        {"total/four": _fixture({"n": 4}, {"acc": 6}),
         "block/thousand": _fixture({"n": 1000000000}, {"cells": 1000})})
    rep = _run(["wf"])
    forever = [m for m in rep.mutants if m.line == 6 and m.replacement == "-"]
    assert [(m.status, m.note) for m in forever] in (
        [("timeout", "cpu_limit: counted as killed")],
        [("timeout", "wall_limit: counted as killed")])  # under heavy load
    hog = [m for m in rep.mutants if m.line == 2 and m.original == "-" and m.replacement == "+"]
    assert [(m.status, m.killed_by) for m in hog] == [("killed", "wf::block::thousand")]
    statuses = {(r.result or {}).get("status") for r in results}
    assert {"memory_limit", "cpu_limit"} <= statuses or {"memory_limit", "wall_limit"} <= statuses
    # the baseline's two fixtures in fresh sandboxes, every mutant run in fork servers
    assert sandboxes.count(False) == rep.baseline_runs == 2
    assert sandboxes.count(True) >= 1
    assert sum(m.fixtures_run for m in rep.mutants) == len(results) >= 2


def test_state_a_mutant_leaves_never_reaches_another(kit, tmp_path, monkeypatch, sandboxes,
                                                     capsys):
    """Every mutant of `tally` runs in the same sandbox as the others: were the decimal
    context one child changed (process-wide state the dialect allows; module-level state it
    refuses, sandbox/test_sandbox_forks.py shows full Python's does not leak either) seen by
    the next, `third` would differ and every mutant would be reported killed. The boundary
    mutants survive, and `stepsmith test` on a copy with one applied agrees."""
    from stepsmith.runner.mutants.apply import Edit, apply

    monkeypatch.chdir(tmp_path)
    wf = kit.write_workflow(tmp_path / "wf", kit.demo_manifest(steps=[
        _step("tally", "tally.py", "tally", ["x"])]), {"steps/tally.py": TALLY},
        {"tally/five": _fixture({"x": 5}, {"third": "0.3333333333333333333333333333",
                                            "label": "small"})})
    rep = _run(["wf"], jobs=1)
    assert rep.notes == [] and len(rep.mutants) > 3
    assert sandboxes.count(True) == 1  # all of them in one fork server (-j 1)
    boundary = sorted((m.original, m.replacement, m.status) for m in rep.mutants
                      if m.line == 7 and m.operator == "comparison")
    assert boundary and {s for _o, _r, s in boundary} == {"survived"}
    assert any(m.status == "killed" for m in rep.mutants)  # the fixture does notice others
    survivor = next(m for m in rep.mutants if m.line == 7 and m.status == "survived")
    copy = tmp_path / "copy"
    shutil.copytree(wf, copy)
    step = copy / "steps/tally.py"
    step.write_text(apply(step.read_text(), Edit(survivor.line, survivor.column,
                                                 survivor.end_line, survivor.end_column,
                                                 survivor.replacement)))
    code, out, _ = kit.cli(capsys, "test", "copy", "--format", "json")
    assert code == 0 and json.loads(out)["summary"]["passed"] == 1


def _total_and_a_wrong_expectation(kit, tmp_path, monkeypatch):
    """The `total` step's one fixture case, and that fixture expecting what it does not do."""
    import dataclasses

    from stepsmith.runner.app import suite

    monkeypatch.chdir(tmp_path)
    kit.write_workflow(tmp_path / "wf", kit.demo_manifest(steps=[
        _step("total", "total.py", "total", ["n"])]), {"steps/total.py": SUM},
        {"total/four": _fixture({"n": 4}, {"acc": 6})})
    _, cases = suite.discover(["wf"])
    case = next(c for c in cases if c.fixture is not None)
    return case, dataclasses.replace(case.fixture, expected=dataclasses.replace(
        case.fixture.expected, output={"acc": 7}))


def test_a_batch_whose_control_fails_there_is_judged_in_fresh_sandboxes(kit, tmp_path,
                                                                        monkeypatch, sandboxes):
    """The control run (the unmutated code, first in the shared sandbox) must pass for the
    batch's verdicts to count; here its expectation is wrong, so the mutant's run is made
    again in a fresh sandbox."""
    import dataclasses

    from stepsmith.runner.app.mutant_judge import run_batch

    case, wrong = _total_and_a_wrong_expectation(kit, tmp_path, monkeypatch)
    control = dataclasses.replace(case, fixture=wrong)
    [result] = run_batch([(control, case)])
    assert result.outcome == "passed"  # the unmutated code, judged on its own
    assert sandboxes == [True, False]  # the shared sandbox, then a fresh one for the run


LABEL = '''\
def label(x):
    if x > 10:
        return {"label": "big"}
    return {"label": "small"}
'''


def test_both_rounds_of_a_run_share_its_fork_servers(kit, tmp_path, monkeypatch, sandboxes):
    """A mutant its first fixture does not notice runs the next in a second round; that round
    is served by the fork server of the first (started once per CPU a run uses: -j 1, one),
    not by a sandbox of its own."""
    monkeypatch.chdir(tmp_path)
    kit.write_workflow(tmp_path / "wf", kit.demo_manifest(steps=[
        _step("label", "label.py", "label", ["x"])]), {"steps/label.py": LABEL},
        {"label/five": _fixture({"x": 5}, {"label": "small"}),
         "label/twenty": _fixture({"x": 20}, {"label": "big"})})
    rep = _run(["wf"], jobs=1)
    boundary = [m for m in rep.mutants if m.operator == "comparison"]
    # `x >= 10` survives the first fixture and so ran the second too: two rounds
    assert [(m.status, m.fixtures_run) for m in boundary] == [("survived", 2)]
    assert sandboxes.count(False) == rep.baseline_runs == 2
    assert sandboxes.count(True) == 1


def test_a_kept_fork_server_makes_a_new_control_for_new_code_or_expectations(
        kit, tmp_path, monkeypatch, sandboxes):
    """The editor keeps its fork servers from one run to the next: a control that passed in
    a server stands only for the very run it made. Here the same fixture comes back with
    another expectation: its control runs again there, fails, and the run is made fresh."""
    import dataclasses

    from stepsmith.runner.app.mutant_judge import Servers, run_batch, serving

    case, fixture = _total_and_a_wrong_expectation(kit, tmp_path, monkeypatch)
    wrong = dataclasses.replace(case, fixture=fixture)
    servers = Servers([])
    try:
        with serving(servers):
            [first] = run_batch([(case, case)])
            [second] = run_batch([(wrong, case)])
    finally:
        servers.close()
    assert (first.outcome, second.outcome) == ("passed", "passed")
    assert sandboxes == [True, False]  # one kept server; the second run made fresh


def test_a_kept_server_is_not_used_again_once_it_is_gone_or_its_harness_is_old():
    """A server kept idle (the editor's) serves again only while it is alive and holds the
    current harness; otherwise it is ended and a new one started."""
    from stepsmith.runner.app.mutant_judge import Servers

    servers = Servers([])
    try:
        first = servers.take(None)
        servers.give(first)
        assert servers.take(None) is first  # alive, current: taken again
        servers.give(first)
        first.harness = "an older harness"
        second = servers.take(None)
        assert second is not first and first.dead and second.current()
        servers.give(second)
        second.kill()
        third = servers.take(None)
        assert third not in (first, second) and third.current()
    finally:
        servers.close()
