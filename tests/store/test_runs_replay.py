"""run-workflow and replay through the CLI: real sandbox, real SQLite store."""

import json
import sqlite3
import subprocess
import sys

import pytest
from stepsmith.runner.cli import main
from stepsmith.runner.store import ResultStore, store_path

pytestmark = pytest.mark.usefixtures("sandbox")
STEPS = ["add", "double", "clock", "bill", "fetch"]


def cli(capsys, *argv):
    code = main([*map(str, argv)])
    out, err = capsys.readouterr()
    flat = lambda t: "\n".join(" ".join(line.split()) for line in t.splitlines())
    return code, flat(out), flat(err)


def rows(wf, run="day1", effects=False):
    with ResultStore.for_workflow(wf) as st:
        return st.run_rows("demo", 1, run, effect_rows=effects)


def test_run_accepts_each_step_and_resumes(tmp_path, kit, capsys):
    wf = kit.run_workflow_dir(tmp_path / "wf")
    code, out, err = cli(capsys, "run-workflow", wf, "--case", "day1")
    assert code == 0, out + err
    for s in STEPS:
        assert f"✓ accepted {s}" in out
    assert "fetch (served from recording)" in out
    assert "run day1: complete — 5 accepted, 0 reused, 0 failed, 0 not run" in out
    got = rows(wf)
    assert [r.step_id for r in got] == ["add", "double", "clock", "bill", "fetch"]
    by = {r.step_id: r for r in got}
    assert by["add"].result["output"] == {"sum": "1.75"}
    assert by["double"].request["inputs"] == {"total": {"sum": "1.75"}}  # wired by the manifest
    assert by["clock"].result["output"]["now"] == "2026-12-01T07:00:00"
    assert by["fetch"].result["served_from"] == "recording"
    assert by["add"].request["seed"] == 11
    assert [r.effect_key for r in rows(wf, effects=True) if r.step_id == "bill"] == [
        "", "draft_bill:INV-1", "draft_bill:INV-2"]
    # the same run id again: everything reused, nothing recomputed or rewritten
    code, out, _ = cli(capsys, "run-workflow", wf, "--case", "day1", "--format", "json")
    doc = json.loads(out)
    assert code == 0 and [s["outcome"] for s in doc["steps"]] == ["reused"] * 5
    assert [r.rowid for r in rows(wf)] == [r.rowid for r in got]
    # a new run id is a new run
    code, out, _ = cli(capsys, "run-workflow", wf, "--case", "day1", "--run-id", "again")
    assert code == 0 and out.count("✓ accepted") == 5


def test_a_failing_step_stops_the_run_and_is_not_accepted(tmp_path, kit, capsys):
    case = dict(kit.RUN_CASE, sources={"numbers": "n/a", "items": kit.BILL_ITEMS})
    wf = kit.run_workflow_dir(tmp_path / "wf", case=case)
    code, out, _ = cli(capsys, "run-workflow", wf, "--case", "day1")
    assert code == 1
    assert "✗ failed add" in out and "status error" in out
    assert "0 accepted, 0 reused, 1 failed, 4 not run" in out
    assert rows(wf) == []
    # fix the code; the same run id runs the step (nothing was accepted for it)
    fixed = kit.ADD_CODE.replace('return {"sum": str(Decimal(a) + Decimal(b))}',
                                 'return {"sum": str(Decimal(a if a != "n/a" else "0") + '
                                 'Decimal(b))}')
    (wf / "steps/calc.py").write_text(fixed)
    code, out, _ = cli(capsys, "run-workflow", wf, "--case", "day1")
    assert code == 0 and out.count("✓ accepted") == 5


def test_changed_code_under_the_same_run_id_fails_loudly(tmp_path, kit, capsys):
    wf = kit.run_workflow_dir(tmp_path / "wf")
    assert cli(capsys, "run-workflow", wf, "--case", "day1")[0] == 0
    before = rows(wf)
    (wf / "steps/calc.py").write_text(kit.ADD_CODE + "\n# an edit\n")
    code, out, err = cli(capsys, "run-workflow", wf, "--case", "day1")
    assert code == 1
    stored = before[0].request_sha256
    assert f"step 'add': an accepted result exists for a DIFFERENT request (stored request " \
           f"sha256 {stored[:12]}…, this request " in err
    assert stored not in err  # abbreviated, as git does (issue 20)
    assert "): the step's code changed. Accepted results are immutable" in err
    assert "code_hash" not in err  # the author's terms (issue 20), not the request's fields
    assert [(r.rowid, r.request_sha256) for r in rows(wf)] == [
        (r.rowid, r.request_sha256) for r in before]
    # replay notices the changed request too
    code, out, _ = cli(capsys, "replay", "day1", wf)
    assert code == 1 and "✗ changed add" in out
    assert "the code in steps/calc.py changed since run 'day1' was accepted" in out


def test_missing_recording_for_a_public_egress_step(tmp_path, kit, capsys):
    case = {k: v for k, v in kit.RUN_CASE.items() if k != "recorded"}
    wf = kit.run_workflow_dir(tmp_path / "wf", case=case)
    code, out, _ = cli(capsys, "run-workflow", wf, "--case", "day1")
    assert code == 1 and "has no recorded output in case 'day1'" in out
    assert [r.step_id for r in rows(wf)] == ["add", "double", "clock", "bill"]


def test_run_workflow_usage(tmp_path, kit, capsys):
    wf = kit.run_workflow_dir(tmp_path / "wf")
    code, _, err = cli(capsys, "run-workflow", wf, "--case", "nope")
    assert code == 2 and "no workflow case 'nope'" in err and "available: day1" in err
    code, _, err = cli(capsys, "run-workflow", wf, "--case", "day1", "--run-id", "a/b")
    assert code == 2 and "run id 'a/b'" in err


def test_replay_identical(tmp_path, kit, capsys):
    wf = kit.run_workflow_dir(tmp_path / "wf")
    assert cli(capsys, "run-workflow", wf, "--case", "day1")[0] == 0
    code, out, _ = cli(capsys, "replay", "day1", wf)
    assert code == 0, out
    assert "replay day1: 4 identical, 1 recorded (not re-executed), 0 differ or changed" in out
    code, out, err = cli(capsys, "replay", "nope", wf)
    assert code == 2 and "runs in this store: day1" in err  # an unknown run id is a usage error


def _cli_without_setarch(*argv):
    """The CLI in a runtime where util-linux's setarch is missing (best effort: the sandbox
    keeps address randomisation), in its own process."""
    code = ("import sys\nfrom stepsmith.runner.sandbox import cmdline\n"
            "cmdline.find_setarch = lambda: None\n"
            "from stepsmith.runner.cli import main\nsys.exit(main(sys.argv[1:]))\n")
    return subprocess.run([sys.executable, "-c", code, *map(str, argv)], capture_output=True,
                          text=True, timeout=300, check=False)


def test_replay_detects_a_nondeterministic_step(tmp_path, kit, capsys):
    """A step whose output depends on a memory address (a function's repr; `id()` is refused,
    SS503). With address randomisation off (`setarch -R`, which CI must have) it is
    deterministic and replays identically. In a runtime without setarch it really is
    nondeterministic: run and replayed there, in two sandboxes with their own random layouts,
    the replay re-executes it and reports the difference (nothing is forged)."""
    import os

    from stepsmith.runner.sandbox import cmdline

    m = kit.run_manifest()
    m["steps"].append({"id": "nd", "explanation": "Depends on memory addresses.",
                       "code": "steps/nd.py:nondeterministic", "inputs": {"x": 1}})
    files = dict(kit.FULL_FILES, **{"steps/nd.py": kit.ND_CODE})
    wf = kit.run_workflow_dir(tmp_path / "wf", m, files)
    if not cmdline.layout()["prefix"]:
        why = "setarch unavailable or refused: addresses are not reproducible here"
        if os.environ.get("STEPSMITH_STRICT") == "1":
            pytest.fail(why)
        pytest.skip(why)
    assert cli(capsys, "run-workflow", wf, "--case", "day1")[0] == 0
    code, out, _ = cli(capsys, "replay", "day1", wf)
    assert code == 0, out
    assert "replay day1: 5 identical" in out

    ran = _cli_without_setarch("run-workflow", wf, "--case", "day1", "--run-id", "aslr")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    (accepted,) = [r for r in rows(wf, "aslr") if r.step_id == "nd"]
    assert accepted.authentic  # a genuine acceptance, not an edited row
    replayed = _cli_without_setarch("replay", "aslr", wf, "--format", "json")
    assert replayed.returncode == 1, replayed.stdout + replayed.stderr
    doc = json.loads(replayed.stdout)
    outcomes = {s["step"]: s["outcome"] for s in doc["steps"]}
    assert outcomes["nd"] == "differs"
    assert {k: v for k, v in outcomes.items() if k != "nd"} == {
        "add": "same", "double": "same", "clock": "same", "bill": "same", "fetch": "recorded"}
    nd = next(s for s in doc["steps"] if s["step"] == "nd")
    assert [d["path"] for d in nd["differences"]] == ["output.where"]
    assert nd["differences"][0]["expected"] == accepted.result["output"]["where"]
    assert nd["differences"][0]["actual"] != accepted.result["output"]["where"]
    text = _cli_without_setarch("replay", "aslr", wf)
    assert text.returncode == 1 and "the run is NOT reproducible as accepted" in text.stdout


def test_replay_detects_a_tampered_result(tmp_path, kit, capsys):
    """Simulated nondeterminism: the accepted row is edited behind the store's back."""
    wf = kit.run_workflow_dir(tmp_path / "wf")
    assert cli(capsys, "run-workflow", wf, "--case", "day1")[0] == 0
    con = sqlite3.connect(store_path(wf))
    con.execute("UPDATE accepted SET result_json = ? WHERE step_id = 'double' AND "
                "effect_key = ''", (json.dumps({"status": "ok", "output": {"twice": "3.49"},
                                               "effects": [], "served_from": "execution"}),))
    con.commit()
    con.close()
    code, out, _ = cli(capsys, "replay", "day1", wf, "--format", "json")
    assert code == 1
    doc = json.loads(out)
    double = next(s for s in doc["steps"] if s["step"] == "double")
    assert double["outcome"] == "differs"
    assert double["differences"] == [{"path": "output.twice", "kind": "changed",
                                      "expected": "3.49", "actual": "3.50",
                                      "message": 'expected "3.49", got "3.50"'}]
    assert {s["step"]: s["outcome"] for s in doc["steps"]}["add"] == "same"


def test_different_runtime_identity_stops_run_and_replay(tmp_path, kit, capsys):
    wf = kit.run_workflow_dir(tmp_path / "wf")
    assert cli(capsys, "run-workflow", wf, "--case", "day1")[0] == 0
    con = sqlite3.connect(store_path(wf))
    con.execute("UPDATE accepted SET harness_source_sha256 = ? WHERE step_id = 'add'",
                ("0" * 64,))
    con.commit()
    con.close()
    code, _, err = cli(capsys, "run-workflow", wf, "--case", "day1")
    assert code == 1
    assert "was produced by a different runtime (harness_source_sha256: stored " + "0" * 12 + "…, " in err
    assert "0" * 13 not in err  # no 64-digit hashes to compare by eye (issue 20)
    assert "not reused and not overwritten" in err
    code, _, err = cli(capsys, "replay", "day1", wf)
    assert code == 1 and "different runtime" in err
    assert rows(wf)[0].identity.harness_source_sha256 == "0" * 64  # untouched


def test_two_runs_of_the_same_run_id_at_once(tmp_path, kit):
    """Two processes run the same run id concurrently: each step is accepted exactly once;
    the other process waits for the run lease (--wait) and then reuses the accepted result.
    (Without --wait the second refuses: tests/cli_run/test_cli_run_lease.py.)"""
    wf = kit.run_workflow_dir(tmp_path / "wf")
    cmd = [sys.executable, "-m", "stepsmith.runner.cli", "run-workflow", str(wf), "--case",
           "day1", "--format", "json", "--wait", "240"]
    for attempt in range(2):
        run_id = f"together-{attempt}"
        procs = [subprocess.Popen(cmd + ["--run-id", run_id], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for _ in range(2)]
        results = [p.communicate(timeout=300) for p in procs]
        for p, (out, err) in zip(procs, results):
            assert p.returncode == 0, err
        docs = [json.loads(out) for out, _ in results]
        for i, step in enumerate(STEPS):
            outcomes = sorted(d["steps"][i]["outcome"] for d in docs)
            assert outcomes == ["accepted", "reused"], (step, outcomes)  # never two rows
            shas = {d["steps"][i]["request_sha256"] for d in docs}
            outputs = {json.dumps(d["steps"][i]["result"]["output"]) for d in docs}
            assert len(shas) == 1 and len(outputs) == 1
        got = rows(wf, run_id, effects=True)
        assert len(got) == len({(r.step_id, r.effect_key) for r in got}) == 7
    con = sqlite3.connect(store_path(wf))
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()


def test_forbidden_field_names_never_reach_a_stored_request(tmp_path, kit, capsys):
    m = kit.demo_manifest()
    m["steps"] = [
        {"id": "tok", "explanation": "Returns a field named token.", "code": "steps/t.py:tok",
         "inputs": {"a": "sources.numbers"}},
        {"id": "use", "explanation": "Uses it.", "code": "steps/t.py:use",
         "inputs": {"t": "steps.tok.output"}},
    ]
    code = ("def tok(a):\n    return {\"Token\": a}\n\n\n"
            "def use(t):\n    return 1\n")
    wf = kit.write_workflow(tmp_path / "wf", m, {"steps/t.py": code},
                            {"_workflow/day1": {"sources": {"numbers": "1"}}})
    code_, out, _ = cli(capsys, "run-workflow", wf, "--case", "day1")
    assert code_ == 1
    assert "✗ failed use" in out and "forbidden field names at t.Token; nothing stored" in out
    assert [r.step_id for r in rows(wf)] == ["tok"]


def test_unavailable_sandbox_and_missing_store(tmp_path, kit, capsys, monkeypatch):
    from stepsmith.runner import sandbox

    wf = kit.run_workflow_dir(tmp_path / "wf")
    code, _, err = cli(capsys, "replay", "day1", wf)
    assert code == 2 and "no accepted results in" in err
    monkeypatch.setattr(sandbox, "sandbox_available",
                        lambda: (False, "bwrap not found: apt-get install bubblewrap"))
    code, _, err = cli(capsys, "run-workflow", wf, "--case", "day1")
    assert code == 2 and "apt-get install bubblewrap" in err
    assert not store_path(wf).exists()


def test_kill_minus_nine_during_run_workflow_then_resume(tmp_path, kit):
    """The whole CLI killed at random moments (mid-sandbox, mid-acceptance): the store stays
    sound and a final run of the same run id completes, reusing what was accepted."""
    import random
    import signal
    import time

    wf = kit.run_workflow_dir(tmp_path / "wf")
    cmd = [sys.executable, "-m", "stepsmith.runner.cli", "run-workflow", str(wf), "--case",
           "day1", "--format", "json"]
    rng = random.Random(7)
    for _ in range(6):
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.05, 0.8))
        p.send_signal(signal.SIGKILL)
        p.wait()
        con = sqlite3.connect(store_path(wf)) if store_path(wf).exists() else None
        if con is not None:
            assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            con.close()
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    assert out.returncode == 0, out.stderr
    assert {s["outcome"] for s in json.loads(out.stdout)["steps"]} <= {"accepted", "reused"}
    got = rows(wf, effects=True)
    assert [r.step_id for r in got if r.effect_key == ""] == STEPS
    assert len(got) == 7
