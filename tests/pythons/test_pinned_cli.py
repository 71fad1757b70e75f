"""A workflow's steps are checked and run on the Python its manifest pins, from a stepsmith
running on another one (3.11 here; 3.13 built by scripts/setup-pythons): the CLI end to end,
real sandboxes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pythons_kit import ADA, NEW_SYNTAX_LINE, isolated_env, workflow

pytestmark = pytest.mark.usefixtures("sandbox")

OLD_SYNTAX = '''\
def label(record):
    tags = ", ".join(record["tags"])
    return "%s (%s): %s" % (record["name"], tags, record["x"] * 2.0 + 1.0)
'''


def stepsmith(cwd: Path, env: dict, *argv: str) -> tuple[int, str, str]:
    p = subprocess.run([sys.executable, "-m", "stepsmith.runner.cli", *argv], cwd=cwd, env=env,
                       capture_output=True, text=True, timeout=300, check=False)
    return p.returncode, p.stdout, p.stderr


@pytest.fixture
def env313(tmp_path, py313) -> dict:
    return isolated_env(tmp_path, STEPSMITH_PYTHONS=f"3.13={py313}", STEPSMITH_NO_CACHE="1")


def test_newer_syntax_pinned_to_313_checks_clean_and_passes_from_a_311_stepsmith(tmp_path,
                                                                                  env313):
    workflow(tmp_path, "w313", "3.13", fixtures=ADA)
    rc, out, err = stepsmith(tmp_path, env313, "check", "w313")
    assert rc == 0, out + err
    rc, out, err = stepsmith(tmp_path, env313, "test", "w313", "--format", "json")
    doc = json.loads(out)
    assert rc == 0, out + err
    assert [r["outcome"] for r in doc["results"]] == ["passed"]


def test_the_same_step_pinned_to_311_is_a_syntax_error_at_its_line(tmp_path, env313):
    workflow(tmp_path, "w311", "3.11", fixtures=ADA)
    rc, out, err = stepsmith(tmp_path, env313, "check", "w311", "--format", "json")
    problems = json.loads(out)["problems"]
    assert rc == 1
    assert [(p["code"], p["line"]) for p in problems] == [("SS001", NEW_SYNTAX_LINE)]
    rc, out, err = stepsmith(tmp_path, env313, "test", "w311")
    assert rc == 1 and f"step.py:{NEW_SYNTAX_LINE}:" in out + err and "SS001" in out + err


def test_a_name_the_pinned_version_lacks_is_reported_as_such(tmp_path, env313):
    code = "import math\n\n\ndef label(record):\n    return math.fma(record['x'], 2.0, 1.0)\n"
    workflow(tmp_path, "w311", "3.11", code)
    workflow(tmp_path, "w313", "3.13", code.replace("math.fma(record['x'], 2.0, 1.0)",
                                                    "re.template"), )
    (tmp_path / "w313" / "steps" / "step.py").write_text(
        "import re\n\n\ndef label(record):\n    return re.template\n")
    rc, out, _ = stepsmith(tmp_path, env313, "check", "w311", "w313", "--format", "json")
    got = sorted((Path(p["path"]).parent.parent.name, p["code"], p["message"])
                 for p in json.loads(out)["problems"])
    assert rc == 1 and got == [
        ("w311", "SS106", "`math.fma` is new in Python 3.13; this workflow pins 3.11"),
        ("w313", "SS106", "`re.template` was removed in Python 3.13; this workflow pins 3.13")]


def test_mixed_pins_run_each_on_its_own_interpreter_in_one_summary(tmp_path, env313):
    workflow(tmp_path, "a311", "3.11", OLD_SYNTAX, fixtures=ADA)
    workflow(tmp_path, "b313", "3.13", fixtures=ADA)
    rc, out, err = stepsmith(tmp_path, env313, "test", "--format", "json", ".")
    doc = json.loads(out)
    assert rc == 0, out + err
    assert sorted((r["workflow"], r["outcome"]) for r in doc["results"]) == [
        ("a311", "passed"), ("b313", "passed")]
    assert doc["summary"]["passed"] == 2 and doc["summary"]["total"] == 2
    rc, out, err = stepsmith(tmp_path, env313, "python", ".")
    assert rc == 0
    lines = sorted(out.splitlines())
    assert lines[0].startswith('a311/workflow.yaml: python "3.11": Python 3.11.')
    assert "(the interpreter stepsmith runs on)" in lines[0]
    assert lines[1].startswith('b313/workflow.yaml: python "3.13": Python 3.13.')
    assert lines[1].endswith(f" at {os.path.realpath(env313['STEPSMITH_PYTHONS'][5:])}")


def test_a_missing_version_is_a_clear_stop_everywhere(tmp_path):
    env = isolated_env(tmp_path, STEPSMITH_NO_CACHE="1")  # no 3.13 anywhere
    workflow(tmp_path, "w313", "3.13", fixtures=ADA)
    how = "uv python install 3.13"
    rc, out, err = stepsmith(tmp_path, env, "check", "w313", "--format", "json")
    (p,) = json.loads(out)["problems"]
    assert rc == 1 and (p["code"], p["line"], p["column"]) == ("SM501", 3, 8)
    assert "Python 3.13 (the workflow's `python:`) is not installed here" in p["message"]
    assert how in p["message"] and "pyenv install 3.13" in p["message"]
    rc, out, err = stepsmith(tmp_path, env, "test", "w313")
    assert rc == 1 and how in out + err and "passed" not in out.split("stepsmith test")[0]
    (tmp_path / "in.json").write_text(json.dumps(ADA["ada"]["inputs"]))
    rc, out, err = stepsmith(tmp_path, env, "run", "w313", "--step", "one", "--inputs", "in.json")
    assert rc == 2 and "is not installed here" in err and how in err
    rc, out, err = stepsmith(tmp_path, env, "python", "w313")
    assert rc == 1 and how in out


def test_the_check_cache_notices_a_changed_interpreter(tmp_path, py313):
    workflow(tmp_path, "w313", "3.13")
    cache = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    with_313 = isolated_env(tmp_path, STEPSMITH_PYTHONS=f"3.13={py313}", **cache)
    without = isolated_env(tmp_path, **cache)
    assert stepsmith(tmp_path, with_313, "check", "w313")[0] == 0
    assert stepsmith(tmp_path, with_313, "check", "w313")[0] == 0  # from the cache
    rc, out, err = stepsmith(tmp_path, without, "check", "w313")
    assert rc == 1 and "SM501" in out, out + err
    assert stepsmith(tmp_path, with_313, "check", "w313")[0] == 0


def test_a_run_accepted_on_one_interpreter_is_never_reused_by_another(tmp_path, kit, py313,
                                                                      isolated, monkeypatch,
                                                                      capsys):
    monkeypatch.setenv("STEPSMITH_PYTHONS", f"3.13={py313}")
    monkeypatch.chdir(tmp_path)
    wf = kit.run_workflow_dir(tmp_path / "wf", kit.run_manifest(python="3.13"))
    code, out, err = kit.cli(capsys, "run-workflow", wf, "--case", "day1")
    assert code == 0 and "complete" in out, out + err
    manifest = wf / "workflow.yaml"
    manifest.write_text(manifest.read_text().replace("python: '3.13'", "python: '3.11'"))
    from stepsmith.runner.pythons import forget

    forget()
    code, out, err = kit.cli(capsys, "run-workflow", wf, "--case", "day1")
    text = " ".join((out + err).split())
    assert code == 1 and "produced by a different runtime (python_version: stored 3.13." in text
    assert f"this runtime {sys.version.split()[0]} (main" in text or \
        f"this runtime {sys.version.split()[0]} (" in text
    assert "✓ accepted" not in out and "reused" not in out
    code, out, err = kit.cli(capsys, "replay", "day1", wf)
    assert code == 1 and "different runtime" in out + err


def test_a_full_pin_takes_that_release_only(tmp_path, env313, py313):
    from stepsmith.runner.pythons import probe

    release = probe.probe(py313).release
    major, minor, micro = (int(x) for x in release.split("."))
    workflow(tmp_path, "exact", release, fixtures=ADA)
    workflow(tmp_path, "other", f"{major}.{minor}.{micro + 1}", fixtures=ADA)
    rc, out, err = stepsmith(tmp_path, env313, "check", "exact", "other", "--format", "json")
    (p,) = json.loads(out)["problems"]
    assert rc == 1 and p["code"] == "SM501" and "other" in p["path"]
    assert f"which is Python {release}" in p["message"]
    rc, out, err = stepsmith(tmp_path, env313, "test", "exact")
    assert rc == 0, out + err
