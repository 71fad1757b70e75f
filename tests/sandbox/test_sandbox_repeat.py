"""The determinism check on real sandbox runs: the dialect's runs agree; an honest source of
nondeterminism the sandbox leaves to full Python (the kernel's getrandom) disagrees."""

from sandbox_kit import run_parallel
from stepsmith.runner.fixtures.repeat import compare_runs, observable
from stepsmith.runner.sandbox import run_step, run_unvalidated

DETERMINISTIC = '''
import datetime, statistics
def f(words):
    return {"set": sorted(set(words)), "order": list(set(words)), "hash": hash("abc"),
            "now": datetime.datetime.now(), "sample": statistics.NormalDist(0, 1).samples(2, seed=3),
            "repr": repr(object).split(" ")[0]}
'''


def test_the_dialect_is_deterministic_across_fresh_sandboxes():
    words = ["invoice", "purchase", "order", "ledger", "acme", "zeta", "alpha"]
    runs = run_parallel([lambda: run_step(DETERMINISTIC, "f", {"words": words},
                                          evaluation_time="2026-12-01T07:00:00Z")
                         for _ in range(4)])
    assert all(r.status == "ok" for r in runs), [r.message for r in runs]
    assert compare_runs(runs) is None


def test_kernel_randomness_disagrees_and_the_diff_says_where():
    src = "import os\ndef f():\n    return {'fixed': 1, 'noise': os.urandom(8).hex()}\n"
    runs = [run_unvalidated(src, "f", {}) for _ in range(3)]
    assert all(r.status == "ok" for r in runs), [r.message for r in runs]
    d = compare_runs(runs)
    assert d is not None
    assert d.groups == ((0,), (1,), (2,)) and (d.first, d.other) == (0, 1)
    assert [x.path for x in d.differences] == ["output.noise"]
    assert d.differences[0].expected == runs[0].output["noise"]
    assert "not deterministic: 3 different results" in d.text()


def test_groups_and_ignored_fields():
    a = {"status": "ok", "output": 1, "duration_ms": 3.0}
    b = {"status": "ok", "output": 1, "duration_ms": 9.0, "coverage": {"lines": [1]}}
    c = {"status": "error", "output": None, "error": {"type": "ValueError", "message": "x",
                                                       "traceback": []}}
    assert compare_runs([a, b]) is None  # timings and the trace are not compared
    d = compare_runs([a, b, c, a])
    assert d.groups == ((0, 1, 3), (2,)) and d.other == 2
    assert [x.path for x in d.differences][:2] == ["status", "output"]
    assert observable(a)["status"] == "ok"
