"""`stepsmith check --fix / --unsafe-fixes / --diff / --show-fixes`: the editor's fixes applied
to files. Every manifest case of the editor's own fix tests (tests/language/test_code_actions.py)
is replayed through the command line: its problem is gone and nothing new appears."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import fix_cases_kit as editor
import pytest
from stepsmith.runner.cli import main

SAFE = {"SM004", "SM204", "SM205"}  # the cases whose preferred fix is certain


def write(tmp_path: Path, manifest: str, files: dict | None = None) -> Path:
    (tmp_path / "steps").mkdir(parents=True, exist_ok=True)
    (tmp_path / "workflow.yaml").write_text(manifest)
    for rel, text in {"steps/read.py": editor.READ_PY, "steps/bills.py": editor.BILLS_PY,
                      **(files or {})}.items():
        (tmp_path / rel).write_text(text)
    return tmp_path


def codes(capsys, path: Path, only: str | None = None) -> Counter:
    main(["check", "--output-format", "json", str(path)])
    return Counter(p["code"] for p in json.loads(capsys.readouterr().out)["problems"]
                   if only is None or p["path"].endswith(only))


@pytest.mark.parametrize("what, old, new, code, want", editor.MANIFEST_CASES,
                         ids=[c[0] for c in editor.MANIFEST_CASES])
def test_every_editor_fix_works_from_the_command_line(tmp_path, capsys, what, old, new, code, want):
    wf = write(tmp_path, editor.MANIFEST.replace(old, new, 1))
    before = codes(capsys, wf, "workflow.yaml")
    everywhere = codes(capsys, wf)
    assert before[code], before
    safe = code in SAFE and what != "unused input, a misspelt parameter"
    # --fix alone applies only the certain fixes; the guesses wait for --unsafe-fixes
    main(["check", "--fix", str(wf)])
    capsys.readouterr()
    if not safe:
        assert codes(capsys, wf) == everywhere and (wf / "workflow.yaml").read_text() == \
            editor.MANIFEST.replace(old, new, 1)
        main(["check", "--fix", "--unsafe-fixes", str(wf)])
        capsys.readouterr()
    assert want in (wf / "workflow.yaml").read_text()
    after = codes(capsys, wf, "workflow.yaml")
    removed = Counter({code: before[code]}) if code == "SM205" else Counter({code: 1})
    removed.update(editor.ALSO_FIXED.get(what, {}))
    assert after == before - removed, (what, (wf / "workflow.yaml").read_text())
    assert not codes(capsys, wf) - everywhere  # nothing new in any file


STEP_CASES = [
    ("import os\nimport json\n\n\ndef read(invoices):\n    return json.dumps(invoices)\n", "SS101"),
    ("import json.decoder\nimport json\n\n\ndef read(invoices):\n    return json.dumps(invoices)\n",
     "SS102"),
    ("import json\nfrom math import *\n\n\ndef read(invoices):\n    return json.dumps(invoices)\n",
     "SS104"),
    ("import json\n\n\n@staticmethod\ndef read(invoices):\n    return json.dumps(invoices)\n",
     "SS404"),
    (("import statistics\n\n\ndef read(invoices):\n"
     "    return statistics.NormalDist(0, 1).samples(2)\n"), "SS501"),
]


# removing a decorator and choosing a seed change what the code does: the author's choice
UNSAFE_STEP_FIXES = {"SS404", "SS501"}


@pytest.mark.parametrize("src, code", STEP_CASES, ids=[c[1] for c in STEP_CASES])
def test_step_file_fixes_and_the_closing_counts(tmp_path, capsys, src, code):
    wf = write(tmp_path, editor.MANIFEST, {"steps/read.py": src})
    assert main(["check", str(wf)]) == 1
    out = capsys.readouterr().out
    unsafe = []
    if code in UNSAFE_STEP_FIXES:
        assert "1 fix(es) available with `--fix --unsafe-fixes`." in out
        assert main(["check", "--fix", str(wf)]) == 1
        capsys.readouterr()
        assert (wf / "steps/read.py").read_text() == src
        unsafe = ["--unsafe-fixes"]
    else:
        assert "[*] 1 fixable with the `--fix` option." in out
    assert main(["check", "--fix", *unsafe, "--show-fixes", str(wf)]) == 0
    out = capsys.readouterr().out
    assert f"1 × {code}" in out and "(1 fixed, 0 remaining)" in out
    assert codes(capsys, wf) == Counter()


def test_remaining_problems_set_the_exit_status(tmp_path, capsys):
    src = "import os\n\n\ndef read(invoices):\n    return eval('1')\n"
    wf = write(tmp_path, editor.MANIFEST, {"steps/read.py": src})
    assert main(["check", "--fix", str(wf)]) == 1
    out = capsys.readouterr().out
    assert "(1 fixed, 1 remaining)" in out and "SS3" in out
    assert "import os" not in (wf / "steps/read.py").read_text()


def test_diff_prints_and_writes_nothing(tmp_path, capsys):
    src = STEP_CASES[0][0]
    wf = write(tmp_path, editor.MANIFEST, {"steps/read.py": src})
    assert main(["check", "--diff", str(wf)]) == 1
    out = capsys.readouterr().out
    assert "-import os\n" in out and "+++ b/" in out
    assert (wf / "steps/read.py").read_text() == src
    main(["check", "--fix", str(wf)])
    capsys.readouterr()
    assert main(["check", "--diff", str(wf)]) == 0 and capsys.readouterr().out == ""


def test_a_file_changed_meanwhile_is_not_overwritten(tmp_path, capsys, monkeypatch):
    from stepsmith.runner.app import fix

    wf = write(tmp_path, editor.MANIFEST, {"steps/read.py": STEP_CASES[0][0]})
    real_plan = fix.plan

    def plan_then_someone_edits(paths, **kw):
        out = real_plan(paths, **kw)
        (wf / "steps/read.py").write_text("# edited by the author meanwhile\n" + STEP_CASES[0][0])
        return out

    monkeypatch.setattr(fix, "plan", plan_then_someone_edits)
    main(["check", "--fix", str(wf)])
    assert "changed on disk while being fixed; not written" in capsys.readouterr().err
    assert (wf / "steps/read.py").read_text().startswith("# edited by the author meanwhile")


def test_a_symlinked_step_file_is_never_written_through(tmp_path, capsys):
    outside = tmp_path / "outside.py"
    outside.write_text(STEP_CASES[0][0])
    wf = write(tmp_path / "wf", editor.MANIFEST)
    os.unlink(wf / "steps/read.py")
    os.symlink(outside, wf / "steps/read.py")
    main(["check", "--fix", str(wf)])
    capsys.readouterr()
    assert outside.read_text() == STEP_CASES[0][0]


def test_declaring_an_effect_is_never_applied_from_the_command_line(tmp_path, capsys):
    wf = write(tmp_path, editor.MANIFEST, {"steps/bills.py": editor.BILLS_UNDECLARED})
    before = (wf / "workflow.yaml").read_text()
    main(["check", "--fix", "--unsafe-fixes", str(wf)])
    capsys.readouterr()
    assert (wf / "workflow.yaml").read_text() == before


def test_a_misspelt_key_is_renamed_not_shadowed_by_a_placeholder(tmp_path, capsys):
    text = editor.MANIFEST.replace("    explanation: Read the invoices.\n",
                                   "    explenation: Read the invoices.\n")
    wf = write(tmp_path, text)
    assert codes(capsys, wf) == Counter({"SM003": 1, "SM004": 1})
    main(["check", "--fix", str(wf)])  # the placeholder would leave the text under a typo
    capsys.readouterr()
    assert (wf / "workflow.yaml").read_text() == text
    assert main(["check", "--fix", "--unsafe-fixes", str(wf)]) == 0
    capsys.readouterr()
    assert "    explanation: Read the invoices.\n" in (wf / "workflow.yaml").read_text()
    assert codes(capsys, wf) == Counter()


@pytest.mark.parametrize("folder", ["with space", "nl\nfolder", "naïve %41 \"q\"", "plain"])
@pytest.mark.parametrize("final_newline", [True, False])
def test_diff_is_a_patch_git_and_patch_apply_to_what_fix_writes(tmp_path, folder,
                                                                final_newline):
    """`--diff` printed difflib's output: a file without a final newline got no `\\ No
    newline at end of file` ("corrupt patch"), a name with a space no TAB after it (patch -p1
    could not find the file), a name with a newline split the header. The patch must apply
    with `git apply` and `patch -p1` and give exactly what `--fix` writes."""
    import shutil
    import subprocess
    import sys

    src = STEP_CASES[0][0]
    src = src if final_newline else src.rstrip("\n")
    wf = write(tmp_path / "repo" / folder, editor.MANIFEST, {"steps/read.py": src})
    repo = wf.parent
    stepsmith = Path(sys.executable).with_name("stepsmith")
    done = subprocess.run([stepsmith, "check", "--diff", "."], cwd=repo, capture_output=True,
                          check=False)
    assert done.returncode == 1, done.stderr
    patch = done.stdout
    fixed = tmp_path / "fixed"
    shutil.copytree(repo, fixed)
    subprocess.run([stepsmith, "check", "--fix", "."], cwd=fixed, capture_output=True,
                   check=False)
    for tool in (["git", "apply", "--unsafe-paths", "-"], ["patch", "-p1", "--batch"]):
        applied = tmp_path / tool[0]
        shutil.copytree(repo, applied)
        dry = [*tool[:2], "--check", "-"] if tool[0] == "git" else [*tool, "--dry-run"]
        for argv in (dry, tool):
            p = subprocess.run(argv, cwd=applied, input=patch, capture_output=True,
                               check=False)
            assert p.returncode == 0, (argv, p.stdout, p.stderr, patch)
        for rel in ("workflow.yaml", "steps/read.py"):
            assert (applied / folder / rel).read_bytes() == (fixed / folder / rel).read_bytes()
    assert (wf / "steps/read.py").read_text() == src  # --diff wrote nothing
