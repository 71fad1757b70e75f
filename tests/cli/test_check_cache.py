"""`stepsmith check` answers an unchanged workflow from its cache (in the
user's cache folder, never in a workspace) with exactly the output of a full check, imports
neither pydantic nor the validator to do so, and sees every change to a file a check reads."""

import json
import os
import subprocess
import sys

import pytest

HEAVY = ("pydantic", "stepsmith.runner.validator", "stepsmith.runner.manifest.model")


def run_check(cwd, cache_home, *args):
    env = {k: v for k, v in os.environ.items() if k != "STEPSMITH_NO_CACHE"}
    env["XDG_CACHE_HOME"] = str(cache_home)
    code = ("import sys, json\n"
            "from stepsmith.runner.cli import main\n"
            f"rc = main(['check', *{list(args)!r}])\n"
            f"print('HEAVY', json.dumps([m for m in {HEAVY!r} if m in sys.modules]))\n"
            "sys.exit(rc)\n")
    p = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True,
                       text=True, timeout=120, check=False)
    out, _, heavy = p.stdout.rpartition("HEAVY ")
    return p.returncode, out, json.loads(heavy)


@pytest.fixture
def tree(tmp_path, kit):
    bad = kit.ADD_CODE.replace('    return {"sum"', '    eval("1")\n    return {"sum"')
    m = kit.demo_manifest()
    m["steps"][1]["explanation"] = ""
    kit.write_workflow(tmp_path / "bad", m, {"steps/calc.py": bad},
                       fixtures={"add/x": '{"inputs": ', "ad/y": kit.add_case("1", None, "1.5")})
    kit.write_workflow(tmp_path / "good", fixtures={"add/x": kit.add_case("1.00", None, "1.50")})
    return tmp_path


def test_a_cached_answer_is_the_full_answer_and_imports_nothing_heavy(tree, tmp_path):
    cache = tmp_path / "cache"
    full = run_check(tree, cache, "--no-cache")
    assert full[0] == 1 and "SS301" in full[1] and "SF002" in full[1] and "SF004" in full[1]
    first = run_check(tree, cache)
    again = run_check(tree, cache)
    assert first[:2] == full[:2] == again[:2]
    assert again[2] == [] and set(first[2]) == set(HEAVY)
    as_json = [run_check(tree, cache, "--format", "json")[1] for _ in range(2)]
    assert as_json[0] == as_json[1] and json.loads(as_json[0])["problems"]
    assert list(cache.rglob("*.json"))  # in the user's cache folder, nothing in a workspace:
    for wf in ("bad", "good"):
        assert not [p for p in (tree / wf).rglob("*") if "check" in p.name], wf


@pytest.mark.parametrize("change", ["steps/calc.py", "fixtures/add/x.json", "workflow.yaml",
                                    "fixtures/new/case.json"])
def test_every_change_a_check_reads_is_seen(tree, tmp_path, change):
    cache = tmp_path / "cache"
    assert run_check(tree, cache, "good")[0] == 0
    target = tree / "good" / change
    target.parent.mkdir(parents=True, exist_ok=True)
    if change.endswith(".py"):
        target.write_text(target.read_text() + "\nclass Nope:\n    pass\n")
    elif change == "workflow.yaml":
        target.write_text(target.read_text().replace("version: 1", "version: one"))
    else:
        target.write_text("{not json")
    code, out, heavy = run_check(tree, cache, "good")
    assert code == 1, out
    assert heavy  # checked for real
