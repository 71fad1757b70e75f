"""The run lease (issue 13): one process executes a run id at a time; a second `run-workflow`
refuses naming the holder and since when (or waits with --wait); a holder that was `kill -9`ed,
or whose lease expired, is taken over by the next one (attempt 2). Real processes, real SQLite,
real sandbox."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from stepsmith.runner.store.db import ResultStore
from stepsmith.runner.store.lease import RunLease
from wfkit import cli

pytestmark = pytest.mark.usefixtures("sandbox")

SLOW = '''\
def slow(a):
    n = 0
    for i in range(2_000_000):
        n += i
    return {"a": a, "n": n}
'''




def slow_workflow(kit, root):
    m = kit.run_manifest()
    m["steps"].insert(0, {"id": "slow", "explanation": "Takes a while.",
                          "code": "steps/slow.py:slow", "inputs": {"a": "sources.numbers"}})
    return kit.run_workflow_dir(root, m, dict(kit.FULL_FILES, **{"steps/slow.py": SLOW}))


def accepted_rows(wf, run_id="day1"):
    with ResultStore.for_workflow(wf) as st:
        return [r.step_id for r in st.run_rows("demo", 1, run_id)]


def lease_row(wf):
    path = wf / ".stepsmith" / "leases.sqlite3"
    if not path.exists():
        return None
    con = sqlite3.connect(path, timeout=5)
    try:
        return con.execute("SELECT pid, attempt FROM lease").fetchone()
    except sqlite3.OperationalError:
        return None
    finally:
        con.close()


def test_a_held_run_is_refused_naming_the_holder(tmp_path, kit, capsys):
    wf = kit.run_workflow_dir(tmp_path / "wf")
    held = RunLease(wf, "demo", 1, "day1")
    held.acquire()
    try:
        code, out, err = cli(capsys, "run-workflow", wf, "--case", "day1")
        assert code == 1
        assert f"is being executed by process {os.getpid()}" in err and "attempt 1" in err
        assert "since 20" in err and "--wait" in err
        assert "accepted" not in out and accepted_rows(wf) == []
        code, out, _ = cli(capsys, "run-workflow", wf, "--case", "day1", "--format", "json")
        doc = json.loads(out)
        assert code == 1 and doc["ok"] is False and str(os.getpid()) in doc["error"]
        t0 = time.monotonic()
        code, _, err = cli(capsys, "run-workflow", wf, "--case", "day1", "--wait", "0.6")
        assert code == 1 and time.monotonic() - t0 >= 0.5 and "(waited 0.6s)" in err
        # another run id is not held
        assert cli(capsys, "run-workflow", wf, "--case", "day1", "--run-id", "other")[0] == 0
    finally:
        held.release()
    code, out, _ = cli(capsys, "run-workflow", wf, "--case", "day1")
    assert code == 0 and "complete" in out and "attempt" not in out


def test_an_expired_lease_is_taken_over(tmp_path, kit, capsys):
    wf = kit.run_workflow_dir(tmp_path / "wf")
    stale = RunLease(wf, "demo", 1, "day1", ttl=0.3)  # alive, but stopped renewing
    stale.acquire()
    time.sleep(0.5)
    code, out, _ = cli(capsys, "run-workflow", wf, "--case", "day1")
    assert code == 0, out
    assert "attempt 2" in out and "took the run over from process" in out
    stale._conn.close()


def test_bad_wait_is_a_usage_error(tmp_path, kit, capsys):
    wf = kit.run_workflow_dir(tmp_path / "wf")
    code, _, err = cli(capsys, "run-workflow", wf, "--case", "day1", "--wait", "-1")
    assert code == 2 and "--wait" in err


def test_two_concurrent_runs_one_executes_the_other_refuses_or_reuses(tmp_path, kit):
    wf = slow_workflow(kit, tmp_path / "wf")
    cmd = [sys.executable, "-m", "stepsmith.runner.cli", "run-workflow", str(wf), "--case",
           "day1", "--format", "json"]
    first = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while lease_row(wf) is None and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    second = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    out1, err1 = first.communicate(timeout=300)
    assert first.returncode == 0, err1
    doc1 = json.loads(out1)
    assert {s["outcome"] for s in doc1["steps"]} == {"accepted"}
    doc2 = json.loads(second.stdout)
    if second.returncode == 1:  # it overlapped: refused, naming the holder
        assert f"process {first.pid}" in doc2["error"] and "since" in doc2["error"]
    else:  # it started after the first had finished: everything reused
        assert second.returncode == 0 and {s["outcome"] for s in doc2["steps"]} == {"reused"}
    rows = accepted_rows(wf)
    assert len(rows) == len(set(rows)) == len(doc1["steps"])


def test_kill_9_of_the_holder_lets_the_next_take_over(tmp_path, kit):
    wf = slow_workflow(kit, tmp_path / "wf")
    cmd = [sys.executable, "-m", "stepsmith.runner.cli", "run-workflow", str(wf), "--case",
           "day1"]
    holder = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              start_new_session=True)
    deadline = time.monotonic() + 60
    while lease_row(wf) is None and holder.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert holder.poll() is None, "the holder finished before it could be killed"
    os.killpg(holder.pid, signal.SIGKILL)
    holder.wait(timeout=30)
    assert lease_row(wf) == (holder.pid, 1)  # the dead holder's lease is still there
    nxt = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    assert nxt.returncode == 0, nxt.stderr
    assert "attempt 2" in nxt.stdout and f"took the run over from process {holder.pid}" in \
        nxt.stdout
    assert "complete" in nxt.stdout
    rows = accepted_rows(wf)
    assert len(rows) == len(set(rows)) == 6
    assert lease_row(wf) is None  # released at the end
