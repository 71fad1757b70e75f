"""Every finding links to a rule page that exists. The pages are generated
from the catalogue into docs/rules/ (checked in; drift fails here), shipped in the package, and
sent as `url` by `check --format json`; the language server links only to an https location
(the `ruleDocsUrl` setting)."""

import json
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse
from urllib.request import url2pathname

from stepsmith.runner import rules
from stepsmith.runner.cli import main
from stepsmith.runner.problems import Problem, Span
from stepsmith.runner.rules.pages import pages, rule_url

REPO = Path(__file__).resolve().parents[2]


def test_the_pages_are_generated_from_the_catalogue_and_checked_in():
    p = subprocess.run([sys.executable, "-m", "stepsmith.runner.rules.pages", "--check",
                        str(REPO / "docs" / "rules")], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    want = pages()
    assert set(want) == {f"{r.code}.md" for r in rules.all_rules()} | {"index.md"}
    ss201 = want["SS201.md"]
    assert "## Refused" in ss201 and "__class__" in ss201 and "## Accepted" in ss201


def test_every_code_has_a_url_to_an_existing_page():
    for r in rules.all_rules():
        url = rule_url(r.code)
        assert url and url.startswith("file://"), r.code
        assert Path(url2pathname(urlparse(url).path)).read_text().startswith(f"# {r.code} ")


def test_check_json_and_lsp_diagnostics_carry_it(tmp_path, kit, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code_ = kit.ADD_CODE.replace('    return {"sum"', '    eval("1")\n    return {"sum"')
    kit.write_workflow(tmp_path / "wf", files={"steps/calc.py": code_})
    assert main(["check", "wf", "--format", "json"]) == 1
    (p,) = json.loads(capsys.readouterr().out)["problems"]
    assert p["code"] == "SS301" and p["url"] == rule_url("SS301")
    from stepsmith.server.convert import to_diagnostic

    # the editor links only to a published https location (tests/server/test_rule_links.py)
    d = to_diagnostic(Problem("SM003", "unknown key", Span(1, 0, 1, 3)), ["abc"], "utf-16")
    assert "codeDescription" not in d
