"""`stepsmith rules` and `stepsmith rule CODE`."""

from __future__ import annotations

import json
import subprocess
import sys

from stepsmith.runner.cli import main
from stepsmith.runner.rules import all_rules, step_rules


def test_rules_table_lists_every_rule(capsys):
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    for rule in all_rules():
        assert rule.code in out
    assert "stepsmith rule CODE" in out


def test_rules_json(capsys):
    assert main(["rules", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [d["code"] for d in data] == [r.code for r in all_rules()]
    ss201 = next(d for d in data if d["code"] == "SS201")
    assert set(ss201) >= {"code", "name", "summary", "rationale", "security", "example", "fix"}


def test_rule_explains_one_rule_with_examples(capsys):
    assert main(["rule", "ss201"]) == 0
    out = capsys.readouterr().out
    rule = step_rules.BY_CODE["SS201"]
    assert out.startswith(f"{rule.name} (SS201)")
    for text in (rule.summary, rule.rationale, "Refused:", "Allowed instead:",
                 "return invoice.__class__"):
        assert text in out


def test_rule_by_name_and_json(capsys):
    assert main(["rule", "unseeded-sampling", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["code"] == "SS501"


def test_unknown_rule_exits_2_with_did_you_mean(capsys):
    assert main(["rule", "SS2O1"]) == 2
    captured = capsys.readouterr()
    assert "unknown rule code 'SS2O1'" in captured.err and "SS201" in captured.err
    assert captured.out == ""


def test_console_script_end_to_end():
    proc = subprocess.run([sys.executable, "-m", "stepsmith.runner.cli", "rule", "SS304"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "mro-access (SS304)" in proc.stdout and "Traceback" not in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "stepsmith.runner.cli", "rule", "XX999"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
