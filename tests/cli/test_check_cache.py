"""`stepsmith check` answers an unchanged workflow from its cache (in the
user's cache folder, never in a workspace) with exactly the output of a full check, and sees
every change to a file a check reads (how fast: bench/cli.py)."""

import json
import os
import subprocess
import sys

import pytest


def run_check(cwd, cache_home, *args, state_home=None):
    env = {k: v for k, v in os.environ.items() if k != "STEPSMITH_NO_CACHE"}
    env["XDG_CACHE_HOME"] = str(cache_home)
    if state_home is not None:  # where this user's key lives (runner/userkey.py)
        env["XDG_STATE_HOME"] = str(state_home)
    code = ("import sys, json\n"
            "from stepsmith.runner.cli import main\n"
            f"rc = main(['check', *{list(args)!r}])\n"
            "sys.exit(rc)\n")
    p = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True,
                       text=True, timeout=120, check=False)
    return p.returncode, p.stdout


@pytest.fixture
def tree(tmp_path, kit):
    bad = kit.ADD_CODE.replace('    return {"sum"', '    eval("1")\n    return {"sum"')
    m = kit.demo_manifest()
    m["steps"][1]["explanation"] = ""
    kit.write_workflow(tmp_path / "bad", m, {"steps/calc.py": bad},
                       fixtures={"add/x": '{"inputs": ', "ad/y": kit.add_case("1", None, "1.5")})
    kit.write_workflow(tmp_path / "good", fixtures={"add/x": kit.add_case("1.00", None, "1.50")})
    return tmp_path


def test_a_cached_answer_is_the_full_answer(tree, tmp_path):
    cache = tmp_path / "cache"
    full = run_check(tree, cache, "--no-cache")
    assert full[0] == 1 and "SS301" in full[1] and "SF002" in full[1] and "SF004" in full[1]
    first = run_check(tree, cache)
    again = run_check(tree, cache)
    assert first == full == again
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
    code, out = run_check(tree, cache, "good")
    assert code == 1, out  # checked again: the change is a finding


def _hiding(entry: dict) -> dict:
    """The entry with every finding it holds taken out."""
    out = dict(entry)
    for key in ("problems", "stale", "fixtures"):
        if key in out:
            out[key] = []
    if "manifest" in out:
        out["manifest"] = []
    return out


def test_an_entry_someone_else_wrote_hides_nothing(tree, tmp_path):
    """A cache folder can come from elsewhere (a CI cache another branch saved, a shared or
    restored home): an entry that says "no problems" is an answer only when this user's
    stepsmith wrote it, under this user's key (the store's and the harness cache's rule)."""
    cache, mine = tmp_path / "cache", tmp_path / "mine"
    assert run_check(tree, cache, state_home=mine)[0] == 1
    entries = sorted((cache / "stepsmith" / "check").glob("*.json"))
    assert entries
    for path in entries:  # edited in place, as anyone who can write the folder could
        raw = path.read_bytes()
        at = raw.index(b"{")
        path.write_bytes(raw[:at] + json.dumps(_hiding(json.loads(raw[at:]))).encode())
    code, out = run_check(tree, cache, state_home=mine)
    assert code == 1 and "SS301" in out and "SF004" in out


def test_an_entry_under_another_key_hides_nothing(tree, tmp_path):
    """Entries written with another key (another user's, another machine's) are answers only
    there: forged under key A, they hide the problems from A and from no one else."""
    cache, theirs, mine = tmp_path / "cache", tmp_path / "theirs", tmp_path / "mine"
    assert run_check(tree, cache, state_home=theirs)[0] == 1
    forge = ("import json, os, sys\n"
             "from pathlib import Path\n"
             "from stepsmith.runner.app import check_cache as c\n"
             "for p in sorted(Path(sys.argv[1], 'stepsmith', 'check').glob('*.json')):\n"
             "    entry = c._read(p.stem)\n"
             "    assert entry is not None, p\n"
             "    hide = {k: ([] if k in ('problems', 'stale', 'fixtures', 'manifest') else v)\n"
             "            for k, v in entry.items()}\n"
             "    c._write(p.stem, hide)\n")
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "XDG_STATE_HOME": str(theirs)}
    subprocess.run([sys.executable, "-c", forge, str(cache)], env=env, check=True, timeout=60)
    assert run_check(tree, cache, state_home=theirs)[0] == 0  # the forgery works for its key
    code, out = run_check(tree, cache, state_home=mine)
    assert code == 1 and "SS301" in out and "SF004" in out


def test_an_entry_moved_to_another_workflows_name_hides_nothing(tree, tmp_path):
    """A MAC binds an entry to its key: the clean answer of one workflow, copied over the
    entries of another (same user, same key), is no answer for it."""
    cache = tmp_path / "cache"
    folder = cache / "stepsmith" / "check"
    assert run_check(tree, cache, "good")[0] == 0
    clean = {p.name: p.read_bytes() for p in folder.glob("*.json")}
    assert run_check(tree, cache)[0] == 1
    theirs = [p for p in folder.glob("*.json") if p.name not in clean]
    assert theirs and clean
    answers = [b for n, b in clean.items() if not n.startswith("facts-")]
    for p in theirs:
        p.write_bytes(answers[0])
    code, out = run_check(tree, cache)
    assert code == 1 and "SS301" in out
