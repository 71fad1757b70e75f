"""kill -9 at random moments during acceptance, and concurrent acceptances from several
processes: the database always opens, passes integrity_check, and every acceptance is either
complete (step row + all its effect rows) or absent. Real processes, real SQLite."""

import json
import random
import signal
import subprocess
import sys
import time

from stepsmith.runner.store import ResultStore, RuntimeIdentity, request_sha256
from stepsmith.runner.store.canonical import canonical_json

IDENT = {"harness_version": "1", "python_version": "3.11.9", "harness_source_sha256": "c" * 64}

WRITER = r'''
import json, os, sys
from stepsmith.runner.store import ResultStore, RuntimeIdentity, build_request
ident = RuntimeIdentity(**json.loads(sys.argv[2]))
st = ResultStore(sys.argv[1], identity=ident)
print("ready", flush=True)
i = 0
pid = os.getpid()
while True:
    i += 1
    n = i % 40
    intents = [{"effect": "send", "key": f"k{j}", "payload": {"j": j, "pad": "x" * 300}}
               for j in range(n)]
    request = build_request(source=f"def f():\n    return {i}\n", function="f",
                            inputs={"i": i, "pid": pid}, evaluation_time=None, seed=None)
    st.accept(workflow="w", version=1, run_id=f"run-{pid}", step_id=f"s{i}", request=request,
              result={"status": "ok", "output": {"i": i, "blob": "y" * (i % 7) * 500},
                      "effects": intents}, effects=intents)
'''

RACER = r'''
import json, os, sys, time
from stepsmith.runner.store import ResultStore, RuntimeIdentity, build_request, RequestMismatch
ident = RuntimeIdentity(**json.loads(sys.argv[2]))
st = ResultStore(sys.argv[1], identity=ident)
value = sys.argv[3]
go = sys.argv[4]
while not os.path.exists(go):
    time.sleep(0.001)
request = build_request(source="def f(v):\n    return v\n", function="f", inputs={"v": value},
                        evaluation_time=None, seed=None)
try:
    acc = st.accept(workflow="w", version=1, run_id="shared", step_id="s", request=request,
                    result={"status": "ok", "output": value, "effects": []})
    print(json.dumps({"reused": acc.reused, "output": acc.result["output"]}))
except RequestMismatch as exc:
    print(json.dumps({"mismatch": str(exc)}))
'''


def verify(path):
    st = ResultStore(path, identity=RuntimeIdentity(**IDENT))
    try:
        assert st.integrity_check() == "ok"
        rows = st.conn.execute("SELECT run_id, step_id, effect_key, request_sha256, "
                               "request_json, result_json FROM accepted").fetchall()
        steps = {}
        effects = {}
        for run_id, step_id, key, sha, request_json, result_json in rows:
            request = json.loads(request_json)
            assert request_sha256(request) == sha and canonical_json(request) == request_json
            result = json.loads(result_json)
            if key == "":
                steps[(run_id, step_id)] = (sha, result)
            else:
                effects.setdefault((run_id, step_id), []).append((key, sha, result))
        for ident, (sha, result) in steps.items():
            got = effects.get(ident, [])
            assert len(got) == len(result["effects"]), ident  # complete, never partial
            assert all(s == sha for _, s, _ in got)
            assert sorted(k for k, _, _ in got) == sorted(f"send:{e['key']}"
                                                          for e in result["effects"])
        assert set(effects) <= set(steps)  # no orphan effect rows
        return len(steps)
    finally:
        st.close()


def test_kill_minus_nine_during_acceptance_never_corrupts(tmp_path):
    path = tmp_path / ".stepsmith" / "results.sqlite3"
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    rng = random.Random(1234)
    accepted_before = 0
    for _ in range(10):
        proc = subprocess.Popen([sys.executable, str(script), str(path), json.dumps(IDENT)],
                                stdout=subprocess.PIPE, text=True)
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.005, 0.12))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        assert proc.returncode == -signal.SIGKILL
        n = verify(path)  # opens (WAL recovery), integrity ok, every acceptance complete
        assert n >= accepted_before
        accepted_before = n
    assert accepted_before > 0


def _race(tmp_path, values):
    path = tmp_path / "results.sqlite3"
    ResultStore(path, identity=RuntimeIdentity(**IDENT)).close()
    script = tmp_path / "racer.py"
    script.write_text(RACER)
    go = tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, str(script), str(path), json.dumps(IDENT), v,
                               str(go)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for v in values]
    time.sleep(0.5)
    go.write_text("go")
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        outs.append(json.loads(out))
    return path, outs


def test_concurrent_acceptances_of_the_same_request_store_one_row(tmp_path):
    path, outs = _race(tmp_path, ["same"] * 4)
    assert sorted(o["reused"] for o in outs) == [False, True, True, True]
    assert all(o["output"] == "same" for o in outs)
    assert verify(path) == 1


def test_concurrent_different_requests_one_wins_the_others_fail_loudly(tmp_path):
    path, outs = _race(tmp_path, ["a", "b", "c", "d"])
    winners = [o for o in outs if "reused" in o]
    losers = [o for o in outs if "mismatch" in o]
    assert len(winners) == 1 and not winners[0]["reused"] and len(losers) == 3
    assert all("DIFFERENT request" in o["mismatch"] for o in losers)
    assert verify(path) == 1
