"""`stepsmith check`: output format, exit codes, path kinds, --first, --format json."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import stepsmith.runner.validator  # noqa: E402,F401
from manifest_kit import BASE, MATCH_PY, pos, write_workflow
from stepsmith.runner.cli import main

LINE = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<code>S[MS]\d{3}) (?P<msg>.*?)(?: \[(?P<step>[^\]]+)\])?$")


def run(capsys, *argv):
    code = main(["check", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def test_clean_workflow_passes(tmp_path, capsys, monkeypatch):
    write_workflow(tmp_path / "wf")
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys)  # default: the current folder
    assert (code, out) == (0, "All checks passed!\n")


def test_problems_are_printed_ruff_style_with_one_based_columns(tmp_path, capsys, monkeypatch):
    text = BASE.replace("effects: [draft_bill]", "effects: [draft_bil]")
    bills = "import os\n\n\ndef draft(matches, connections, effects):\n    return len(matches)\n"
    write_workflow(tmp_path / "wf", text, {"steps/match.py": MATCH_PY, "steps/bills.py": bills})
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "wf")
    lines = out.splitlines()
    assert code == 1
    assert lines[-2:] == ["Found 2 problems in 2 files.",
                          "[*] 1 fixable with the `--fix` option (1 more with `--unsafe-fixes`)."]
    m = LINE.match(lines[0])
    assert m and m["path"] == os.path.join("wf", "steps", "bills.py") and m["code"] == "SS101"
    assert (m["line"], m["col"]) == ("1", "8")  # `os` at 0-based column 7
    assert m["step"] is None  # module level
    m = LINE.match(lines[1])
    line, col = pos(text, "draft_bil]")
    assert m["path"] == os.path.join("wf", "workflow.yaml") and m["code"] == "SM103"
    assert (int(m["line"]), int(m["col"])) == (line, col + 1)
    assert m["step"] == "draft"


def test_json_format(tmp_path, capsys):
    text = BASE.replace("version: 3", "version: 0")
    m = write_workflow(tmp_path / "wf", text)
    code, out, err = run(capsys, "--format", "json", m)
    data = json.loads(out)
    assert code == 1
    (p,) = data["problems"]
    assert p["code"] == "SM005" and p["line"] == 2 and p["column"] == 9  # 0-based in JSON
    assert p["end_column"] == 10 and p["path"].endswith("workflow.yaml") and p["rationale"]
    assert data["files_checked"] == 3 and data["files_with_problems"] == 1


def test_first_gives_one_problem_per_step(tmp_path, capsys):
    bills = "def draft(matches, connections, effects):\n    eval('1')\n    return open('x')\n"
    m = write_workflow(tmp_path, files={"steps/match.py": MATCH_PY, "steps/bills.py": bills})
    code_all, out_all, _ = run(capsys, "--all", m)
    code_first, out_first, _ = run(capsys, "--first", m)
    assert code_all == code_first == 1
    assert out_all.count("SS3") == 2
    assert out_first.count("SS3") == 1 and "`eval`" in out_first


def test_manifest_file_path(tmp_path, capsys):
    m = write_workflow(tmp_path / "wf")
    assert run(capsys, m)[0] == 0


def test_step_file_path_checks_its_workflow(tmp_path, capsys):
    text = BASE.replace('      tolerance: "0.50"\n', "")
    m = write_workflow(tmp_path / "wf", text)
    code, out, _ = run(capsys, m.parent / "steps" / "match.py")
    assert code == 1
    assert "SM205" in out and "parameter 'tolerance'" in out


def test_bare_python_file_validated_without_uses(tmp_path, capsys):
    f = tmp_path / "loose.py"
    f.write_text("import urllib.request\n\n\ndef f(x):\n    return x\n")
    code, out, _ = run(capsys, f)
    assert code == 1
    assert "SS105" in out and "loose.py:1:8:" in out


def test_nonexistent_path_is_a_usage_error(tmp_path, capsys):
    code, out, err = run(capsys, tmp_path / "missing")
    assert code == 2
    assert "no such file or folder" in err and out == ""


def test_unsupported_file_kind_is_a_usage_error(tmp_path, capsys):
    f = tmp_path / "notes.txt"
    f.write_text("hi")
    code, out, err = run(capsys, f)
    assert code == 2 and "not a folder, workflow manifest or step .py file" in err


def test_empty_folder_named_on_the_command_line_is_a_usage_error(tmp_path, capsys):
    code, out, err = run(capsys, tmp_path)
    assert code == 2 and "no workflow manifests" in err
    assert "All checks passed" not in out  # nothing was checked: never say it passed
    code, out, err = run(capsys, "--format", "json", tmp_path)
    assert code == 2


def test_empty_current_folder_by_default_passes_with_a_note(tmp_path, capsys, monkeypatch):
    # the pre-commit hook runs `stepsmith check` with no PATH in any repository
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys)
    assert code == 0 and "no workflow manifests" in err and "All checks passed" not in out


def test_internal_error_exits_2_without_traceback(tmp_path, capsys, monkeypatch):
    from stepsmith.runner import manifest

    write_workflow(tmp_path)

    def boom(*a, **k):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(manifest, "check_workflow", boom)
    code, out, err = run(capsys, tmp_path)
    assert code == 2 and "internal error: RuntimeError: kaboom" in err and "Traceback" not in err


def test_broken_manifests_are_reported_not_crashed(tmp_path, capsys):
    for name, content in [("a", b"- just\n- a list\n"), ("b", b"\xff\xfe\x00binary"), ("c", b""),
                          ("d", b"[" * 100_000)]:
        (tmp_path / name).mkdir()
        (tmp_path / name / "workflow.yaml").write_bytes(content)
    code, out, err = run(capsys, tmp_path)
    assert code == 1
    assert sorted(re.findall(r"(SM\d{3})", out)) == ["SM006", "SM006", "SM007", "SM008"]
    assert out.splitlines()[-1] == "Found 4 problems in 4 files."


def test_subprocess_exit_codes_and_console_script(tmp_path):
    m = write_workflow(tmp_path / "wf")
    r = subprocess.run([sys.executable, "-m", "stepsmith.runner.cli", "check", str(tmp_path)],
                       capture_output=True, text=True)
    assert (r.returncode, r.stdout) == (0, "All checks passed!\n"), r.stderr
    m.write_text(BASE.replace("version: 3", "version: zero"))
    r = subprocess.run([sys.executable, "-m", "stepsmith.runner.cli", "check", str(m)],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "SM005" in r.stdout
    r = subprocess.run([sys.executable, "-m", "stepsmith.runner.cli", "check", str(tmp_path / "nope")],
                       capture_output=True, text=True)
    assert r.returncode == 2


def test_pre_commit_hook_definition():
    import yaml

    repo = Path(__file__).resolve().parents[2]
    hooks = yaml.safe_load((repo / ".pre-commit-hooks.yaml").read_text())
    (hook,) = [h for h in hooks if h["id"] == "stepsmith-check"]
    assert hook["entry"].split()[:2] == ["stepsmith", "check"]
    assert hook["language"] == "python"
    files = re.compile(hook["files"])
    for path in ["workflow.yaml", "examples/x/workflow.yaml", "a/billing.workflow.yaml", "steps/match.py"]:
        assert files.search(path), path
    for path in ["README.md", "notes.yaml", "a/myworkflow.yaml.bak"]:
        assert not files.search(path), path
