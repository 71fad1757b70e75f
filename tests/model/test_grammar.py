"""The one grammar: names, manifest files, allowed modules; and its export for TypeScript."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from stepsmith.runner.manifest import is_manifest_name as manifest_is_manifest_name
from stepsmith.runner.manifest.model import CODE_PATTERN, SLUG_PATTERN
from stepsmith.runner.manifest.workflow_checks import is_manifest_name as check_is_manifest_name
from stepsmith.runner.model import grammar
from stepsmith.runner.model.export import (
    GENERATED,
    grammar_json,
    grammar_text,
    main,
    repo_root,
)
from stepsmith.runner.validator import policy

REPO = Path(__file__).resolve().parents[2]


def test_generated_grammar_json_matches_the_grammar():
    checked_in = REPO / GENERATED
    assert checked_in.read_text(encoding="utf-8") == grammar_text(), (
        f"{GENERATED} drifted from runner/model/grammar.py; regenerate it with "
        "`python -m stepsmith.runner.model.export --write` (or scripts/gen-grammar)")


def test_export_carries_every_rule_the_client_needs():
    g = grammar_json()
    assert g["slug"]["pattern"] == SLUG_PATTERN == grammar.SLUG_PATTERN
    assert g["code"]["pattern"] == CODE_PATTERN
    assert g["case"]["pattern"] == grammar.CASE_PATTERN
    assert g["manifest"] == {"name": "workflow.yaml", "suffix": ".workflow.yaml",
                             "globs": ["**/workflow.yaml", "**/*.workflow.yaml"]}
    assert g["references"] == {"source_prefix": "sources.", "step_prefix": "steps.",
                               "step_suffix": ".output"}
    assert g["allowed_modules"] == sorted(policy.ALLOWED_MODULES)
    assert g["network_modules"] == sorted(policy.NETWORK_MODULES)


def test_patterns_use_only_what_javascript_reads_alike():
    for key in ("slug", "name", "param", "code", "case"):
        pat = grammar_json()[key]["pattern"]
        assert pat.startswith("^") and pat.endswith("$"), key
        for py_only in ("(?P", "\\A", "\\Z", "(?<", "(?i", "(?x", "\\d", "\\w"):
            assert py_only not in pat, (key, py_only)


def test_main_prints_and_writes(tmp_path, capsys, monkeypatch):
    assert main([]) == 0
    assert capsys.readouterr().out == grammar_text()
    assert main(["--bogus"]) == 2
    monkeypatch.setattr("stepsmith.runner.model.export.repo_root", lambda: tmp_path)
    assert main(["--write"]) == 0
    assert (tmp_path / GENERATED).read_text(encoding="utf-8") == grammar_text()
    assert repo_root() == REPO


MANIFEST_NAMES = {"workflow.yaml": True, "a.workflow.yaml": True, "x-y.workflow.yaml": True,
                  ".workflow.yaml": False, "workflow.yml": False, "Workflow.yaml": False,
                  "workflow.yaml.bak": False, "aworkflow.yaml": False, "": False}


@pytest.mark.parametrize(("name", "ok"), MANIFEST_NAMES.items())
def test_is_manifest_name_is_one_function(name, ok):
    assert grammar.is_manifest_name(name) is ok
    assert manifest_is_manifest_name is grammar.is_manifest_name
    assert check_is_manifest_name is grammar.is_manifest_name  # kept importable there


SLUGS = {"match": True, "a": True, "draft-bill": True, "step_2": True, "Match": False,
         "2step": False, "-a": False, "a b": False, "a.b": False, "": False, "é": False}
CASES = {"case-2026-12-03": True, "0": True, "a.b": True, "x_y": True, "Case": False,
         ".hidden": False, "..": False, "a/b": False, "a\\b": False, "": False,
         "x" * 100: True, "x" * 101: False, " a": False}


@pytest.mark.parametrize(("text", "ok"), SLUGS.items())
def test_slugs(text, ok):
    assert grammar.is_slug(text) is ok
    assert (re.match(grammar_json()["slug"]["pattern"], text) is not None) is ok


@pytest.mark.parametrize(("text", "ok"), CASES.items(), ids=lambda v: str(v)[:12])
def test_case_names(text, ok):
    assert grammar.is_case_name(text) is ok
    from stepsmith.runner.fixtures.model import SLUG

    assert (SLUG.match(text) is not None) is ok  # the fixture loader's rule is this one


def test_non_text_is_no_name():
    for v in (None, 3, b"match", ["match"]):
        assert not grammar.is_slug(v) and not grammar.is_case_name(v) and not grammar.is_name(v)


def test_sandbox_facades_serve_exactly_the_allowed_modules():
    import marshal

    from stepsmith.runner.harness import bundle

    ns = {"REQ": {}, "VIOLATIONS": []}
    exec(marshal.loads(bundle()["facades"]), ns)  # noqa: S102 - our own compiled facades
    assert set(ns["_ALLOWED"]) == policy.ALLOWED_MODULES
