"""`stepsmith check --base REV`: a workflow is an immutable version (SM401 / SM402), checked
against real git repositories made here."""

from __future__ import annotations

import json

import pytest
from gitkit import committed_workflow, git
from manifest_kit import BASE, write_workflow
from stepsmith.runner.cli import main


@pytest.fixture
def repo(tmp_path, monkeypatch):
    r = committed_workflow(tmp_path)
    monkeypatch.chdir(r)
    return r


def problems(capsys, *argv) -> tuple[int, list[dict]]:
    rc = main(["check", "--output-format", "json", *argv])
    return rc, json.loads(capsys.readouterr().out)["problems"]


def test_unchanged_workflow_is_clean(repo, capsys):
    assert problems(capsys, "--base", "HEAD", "wf") == (0, [])


def test_changed_step_file_without_a_new_version_warns(repo, capsys):
    step = repo / "wf" / "steps" / "match.py"
    step.write_text(step.read_text() + "\n\ndef helper():\n    return 1\n")
    rc, probs = problems(capsys, "--base", "HEAD", "wf")
    (p,) = probs
    assert rc == 0 and p["code"] == "SM401" and p["severity"] == "warning"
    assert "steps/match.py" in p["message"] and "increase it to 4" in p["message"]
    assert (p["line"], p["column"]) == (2, 9)  # the value of `version:`
    assert main(["check", "--strict", "--base", "HEAD", "wf"]) == 1
    capsys.readouterr()
    assert main(["check", "--output-format", "github", "--base", "HEAD", "wf"]) == 0
    assert capsys.readouterr().out.startswith("::warning file=wf/workflow.yaml,line=2,col=10")


def test_changed_manifest_with_a_higher_version_is_clean(repo, capsys):
    man = repo / "wf" / "workflow.yaml"
    man.write_text(man.read_text().replace("version: 3", "version: 4")
                   .replace("Draft a bill for each clean match.", "Draft bills."))
    assert problems(capsys, "--base", "HEAD", "wf") == (0, [])
    man.write_text(man.read_text().replace("version: 4", "version: 3"))
    _rc, probs = problems(capsys, "--base", "HEAD", "wf")
    assert [p["code"] for p in probs] == ["SM401"] and "workflow.yaml" in probs[0]["message"]


def test_a_lower_version_is_an_error(repo, capsys):
    man = repo / "wf" / "workflow.yaml"
    man.write_text(man.read_text().replace("version: 3", "version: 2"))
    rc, probs = problems(capsys, "--base", "HEAD", "wf")
    assert rc == 1 and [(p["code"], p["severity"]) for p in probs] == [("SM402", "error")]


def test_a_removed_step_file_counts_as_a_change(repo, capsys):
    man = repo / "wf" / "workflow.yaml"
    text = man.read_text()
    draft = text.index("  - id: draft")
    man.write_text(text[:draft])
    git(repo, "rm", "-q", "wf/steps/bills.py")
    git(repo, "commit", "-qam", "one step")
    git(repo, "tag", "one")
    (repo / "wf" / "steps" / "match.py").write_text("def match(invoices, purchase_orders, tolerance):\n    return []\n")
    _rc, probs = problems(capsys, "--base", "one", "wf")
    assert [p["code"] for p in probs] == ["SM401"]


def test_a_new_workflow_and_a_bad_revision(repo, capsys):
    write_workflow(repo / "other", BASE.replace("invoice-matching", "other"))
    assert problems(capsys, "--base", "HEAD", "other") == (0, [])
    assert main(["check", "--base", "nope", "wf"]) == 2
    assert "stepsmith check --base" in capsys.readouterr().err


def test_the_rules_are_in_the_catalogue(capsys):
    from stepsmith.runner import rules

    for code in ("SM401", "SM402"):
        r = rules.get(code)
        assert r.example and r.fix and r.rationale
        assert main(["rule", code]) == 0 and code in capsys.readouterr().out
