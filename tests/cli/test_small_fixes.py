"""Init's "next:" line shell-quotes paths; the
`[x]` suffix of `check` is the step id for step-file and manifest findings alike; SS501 on
`seed=None` says so; SM201 names the missing file relative to the workflow folder, whatever
the current directory (the server's); `--maxfail` reports what it did; a channel named as the
platform names it (`finance-requests`) is a valid channel source."""

import json
import re
import shlex

import jsonschema
import pytest
import yaml
from stepsmith.runner.manifest import check_workflow, parse_manifest
from stepsmith.runner.validator import validate
from wfkit import cli


def test_init_next_line_is_a_pasteable_shell_command(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, out, _ = cli(capsys, "init", "My Flow", "--name", "my-flow")
    assert code == 0
    (line,) = [ln for ln in out.splitlines() if ln.startswith("next: ")]
    assert line == "next: stepsmith check 'My Flow' && stepsmith test 'My Flow'"
    argv = shlex.split(line.removeprefix("next: ").split(" && ")[0])
    assert argv == ["stepsmith", "check", "My Flow"]


def test_the_suffix_is_the_step_id_for_step_file_findings_too(tmp_path, kit, monkeypatch,
                                                               capsys):
    monkeypatch.chdir(tmp_path)
    m = kit.demo_manifest()
    m["steps"][0]["id"] = "sum-up"  # the step `sum-up` runs the function `add`
    m["steps"][1]["inputs"] = {"total": "steps.sum-up.output"}
    code_ = kit.ADD_CODE.replace('    return {"sum"', '    eval("1")\n    return {"sum"')
    kit.write_workflow(tmp_path / "wf", m, {"steps/calc.py": code_})
    code, out, _ = cli(capsys, "check", "wf")
    assert code == 1
    line = next(ln for ln in out.splitlines() if "SS3" in ln)
    assert line.endswith("[sum-up]"), line
    assert "--help" and "step id" in cli(capsys, "check", "--help")[1]


def test_ss501_on_seed_none_says_seed_none():
    src = ("from statistics import NormalDist\n\n\ndef f(x):\n"
           "    return NormalDist(0, 1).samples(3, seed=None)\n")
    (p,) = [p for p in validate(src) if p.code == "SS501"]
    assert "seed=None" in p.message and "without" not in p.message
    (p,) = [p for p in validate(src.replace(", seed=None", "")) if p.code == "SS501"]
    assert "without" in p.message


def test_sm201_path_is_relative_to_the_workflow_not_the_cwd(tmp_path, kit, monkeypatch):
    m = kit.demo_manifest()
    m["steps"][0]["code"] = "steps/missing.py:add"
    wf = kit.write_workflow(tmp_path / "deep" / "wf", m)
    monkeypatch.chdir(tmp_path.parent)  # the server's cwd: anywhere
    probs = check_workflow(wf / "workflow.yaml").problems[wf / "workflow.yaml"]
    (p,) = [p for p in probs if p.code == "SM201"]
    assert "looked in steps/missing.py" in p.message and ".." not in p.message, p.message


@pytest.mark.usefixtures("sandbox")
def test_maxfail_says_how_many_failed(tmp_path, kit, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    fx = {f"add/c{i}": kit.add_case("1.00", None, "0") for i in range(8)}
    kit.write_workflow(tmp_path / "wf", fixtures=fx)
    code, out, _ = cli(capsys, "test", "wf", "--maxfail", "2", "-j", "4")
    assert code == 1
    failed = int(re.search(r"(\d+) failed", out).group(1))
    stopped = re.search(r"stopped after (\d+) failures?", out)
    assert stopped and int(stopped.group(1)) == failed, out
    assert "--maxfail 2" in out


CHANNEL = """workflow: kinds
version: 1
python: "3.11"
trigger: {manual: {}}
sources:
  requests: {kind: channel, channel: finance-requests}
steps:
  - id: read
    explanation: Read the requests.
    code: steps/read.py:read
    inputs: {a: sources.requests}
"""


def test_a_channel_is_named_as_the_platform_names_it():
    from pathlib import Path

    schema = json.loads((Path(__file__).resolve().parents[2] / "schemas" /
                         "workflow.schema.json").read_text())
    for name in ("finance-requests", "Finance Requests", "#finance", "billing_alerts"):
        text = CHANNEL.replace("finance-requests", json.dumps(name))
        assert parse_manifest(text, "workflow.yaml").problems == [], name
        jsonschema.validate(yaml.safe_load(text), schema)
    for bad in ('""', '" padded"', '"line\\nbreak"'):
        text = CHANNEL.replace("finance-requests", bad)
        assert [p.code for p in parse_manifest(text, "workflow.yaml").problems] == ["SM005"]
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(yaml.safe_load(text), schema)
