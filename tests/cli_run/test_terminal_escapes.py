"""Hostile data never drives the terminal. A step's error message, traceback
text and captured stdout, fixture and pending file names, and a step file's name carry OSC 52
(clipboard), OSC 8 (links), `ESC[1A ESC[2K` (erase the FAILED line, draw a fake PASSED), BEL
and C1 (CSI as one byte, 0x9b). The real `stepsmith` commands and `pytest --stepsmith` run in
child processes (no terminal: rich emits no styling of its own, so any control character in
their output came from the workflow); none reaches stdout or stderr raw, and `--junit-xml`
parses with xml.etree."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.usefixtures("sandbox")

ESC, BEL, CSI = "\x1b", "\x07", "\x9b"
OSC52 = ESC + "]52;c;ZXZpbA==" + BEL
OSC8 = ESC + "]8;;http://evil.example/" + ESC + "\\click" + ESC + "]8;;" + ESC + "\\"
ERASE = ESC + "[1A" + ESC + "[2K" + "PASSED"
HOSTILE = OSC52 + OSC8 + ERASE + BEL + CSI + "31m" + "\x7f\x08\r"
BAD_NAME = ESC + "[2K" + ESC + "[1Aok" + BEL  # a fixture / pending file stem
AT = "2026-12-01T07:00:00+00:00"
#: raw C0 (but \n and \t), DEL, C1: what must never reach a terminal from workflow data
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")

# the raw characters sit in the source itself (all but the backslash and CR, which a string
# literal cannot hold raw), so the traceback's text line carries them too
LIT = HOSTILE.replace("\\", "\\\\").replace("\r", "\\r")
STEPS = (
    "def echo(a):\n"
    f"    print('OUT{LIT}')\n"
    f"    return {{'said': 'RET{LIT}'}}\n"
    "\n\n"
    "def boom(a):\n"
    f"    print('OUT{LIT}')\n"
    f"    raise ValueError('MSG{LIT}')\n"
)


def manifest(step_file: str = "steps/h.py") -> dict:
    return {
        "workflow": "hostile", "version": 1, "python": "3.11", "trigger": {"manual": {}},
        "connections": {"ledger": {"description": "ledger"}},
        "sources": {"numbers": {"connection": "ledger"}},
        "steps": [
            {"id": "echo", "explanation": "Say it.", "code": f"{step_file}:echo",
             "inputs": {"a": "sources.numbers"}},
            {"id": "boom", "explanation": "Fail loudly.", "code": f"{step_file}:boom",
             "inputs": {"a": "sources.numbers"}},
        ],
    }


def write(root: Path, step_file: str = "steps/h.py") -> Path:
    root.mkdir(parents=True)
    (root / "workflow.yaml").write_text(yaml.safe_dump(manifest(step_file)), encoding="utf-8")
    (root / step_file).parent.mkdir(parents=True, exist_ok=True)
    (root / step_file).write_text(STEPS, encoding="utf-8")
    fx = root / "fixtures"
    for step, name, doc in [
        ("boom", "fails", {"inputs": {"a": "1"}, "evaluation_time": AT,
                           "expected": {"output": {"said": "nothing"}}}),
        ("echo", "passes", {"inputs": {"a": "1"}, "evaluation_time": AT,
                            "expected": {"output": {"said": "RET" + HOSTILE}}}),
        ("echo", "differs", {"inputs": {"a": "1"}, "evaluation_time": AT,
                             "expected": {"output": {"said": "other"}}}),
        ("echo", BAD_NAME, {"inputs": {"a": "1"}, "evaluation_time": AT,
                            "expected": {"output": {"said": "x"}}}),
    ]:
        (fx / step).mkdir(parents=True, exist_ok=True)
        (fx / step / f"{name}.json").write_text(json.dumps(doc), encoding="utf-8")
    (fx / "_workflow").mkdir()
    (fx / "_workflow" / "day1.json").write_text(json.dumps(
        {"sources": {"numbers": "1"}, "evaluation_time": AT}), encoding="utf-8")
    return root


def stepsmith(*argv, cwd: Path, stdin: str | None = None):
    return subprocess.run([sys.executable, "-m", "stepsmith.runner.cli", *map(str, argv)],
                          cwd=cwd, input=stdin, capture_output=True, text=True,
                          encoding="utf-8", errors="surrogateescape", timeout=180,
                          env=_env(), check=False)


def _env():
    import os

    env = dict(os.environ)
    env.pop("FORCE_COLOR", None)
    env.update(COLUMNS="200", TERM="xterm-256color", NO_COLOR="")
    return env


def assert_clean(done, *must_show: str):
    for name, text in (("stdout", done.stdout), ("stderr", done.stderr)):
        raw = RAW.findall(text)
        assert not raw, (name, sorted(set(raw)), text[-3000:])
    both = done.stdout + done.stderr
    assert "Traceback (most recent" not in both, both
    for s in must_show:
        assert s in both, (s, both[-3000:])


@pytest.fixture
def wf(tmp_path):
    return write(tmp_path / "wf")


def test_stepsmith_test_verbose_and_captured_output(wf):
    done = stepsmith("test", "wf", "-v", "-s", cwd=wf.parent)
    assert done.returncode == 1, done.stderr
    # visible escapes: the reader sees what the data held
    assert_clean(done, "MSG\\x1b]52;c;ZXZpbA==\\x07", "OUT\\x1b]52", "\\x1b[1A\\x1b[2KPASSED",
                 "\\x9b31m")


def test_bad_fixture_file_name_is_refused_at_discovery_and_shown_escaped(wf):
    done = stepsmith("test", "wf", "--format", "json", cwd=wf.parent)
    assert not RAW.search(done.stdout), sorted(set(RAW.findall(done.stdout)))  # C1 as \u
    report = json.loads(done.stdout)
    # never a node id: the workflow's "(fixture files)" error reports it, escaped
    assert not [r for r in report["results"] if "ok" in r["id"]], report["results"]
    bad = [r for r in report["results"] if r["case"] == "(fixture files)"]
    assert len(bad) == 1, report["results"]
    said = " ".join(bad[0]["messages"])
    assert bad[0]["outcome"] == "error" and "not a valid case name" in said
    assert "'\\x1b[2K\\x1b[1Aok\\x07'" in said, said
    text = stepsmith("test", "wf", cwd=wf.parent)
    assert_clean(text, "not a valid case name", "\\x1b[2K\\x1b[1Aok\\x07")


def test_junit_xml_parses_and_keeps_what_the_data_said(wf):
    done = stepsmith("test", "wf", "--junit-xml", "report.xml", cwd=wf.parent)
    assert_clean(done)
    raw = (wf.parent / "report.xml").read_text(encoding="utf-8")
    assert not RAW.search(raw), sorted(set(RAW.findall(raw)))
    root = ET.fromstring(raw.encode("utf-8"))
    cases = root.findall(".//testcase")
    names = {c.get("name") for c in cases}
    assert "(fixture files)" in names and not [n for n in names if "ok" in n], names
    bad = next(c for c in cases if c.get("name") == "(fixture files)").find("error")
    assert "\\x1b[2K\\x1b[1Aok\\x07" in (bad.get("message") or "") + (bad.text or "")
    failure = next(c for c in cases if c.get("name") == "fails").find("error")
    failure = failure if failure is not None else next(
        c for c in cases if c.get("name") == "fails").find("failure")
    assert "MSG\\x1b]52" in (failure.get("message") or "") + (failure.text or "")


def test_run_and_record_print_results_escaped(wf):
    run = stepsmith("run", "wf", "--step", "boom", "--inputs", "-", cwd=wf.parent,
                    stdin='{"a": "1"}')
    assert run.returncode == 1
    assert_clean(run, "MSG\\x1b]52")
    ok = stepsmith("run", "wf", "--step", "echo", "--inputs", "-", cwd=wf.parent,
                   stdin='{"a": "1"}')
    assert_clean(ok, "OUT\\x1b]52")
    rec = stepsmith("record", "wf", "--step", "boom", "--inputs", "-", "--name", "hostile1",
                    "--at", AT, cwd=wf.parent, stdin='{"a": "1"}')
    assert_clean(rec, "MSG\\x1b]52")
    named = stepsmith("record", "wf", "--step", "echo", "--inputs", "-", "--name", BAD_NAME,
                      cwd=wf.parent, stdin='{"a": "1"}')
    assert named.returncode == 2
    assert_clean(named)


def test_record_refuses_a_name_with_a_trailing_newline(wf):
    done = stepsmith("record", "wf", "--step", "echo", "--inputs", "-", "--name", "nl\n",
                     "--at", AT, cwd=wf.parent, stdin='{"a": "1"}')
    assert done.returncode == 2, done.stdout + done.stderr
    assert "is not a case name" in done.stderr
    assert sorted(p.name for p in (wf / "fixtures" / "echo").iterdir()) == \
        sorted(["passes.json", "differs.json", BAD_NAME + ".json"])


def test_run_workflow_and_replay_show_outcomes_escaped(wf):
    done = stepsmith("run-workflow", "wf", "--case", "day1", cwd=wf.parent)
    assert done.returncode == 1, done.stdout + done.stderr  # boom fails after echo is accepted
    assert_clean(done, "MSG\\x1b]52")
    steps = wf / "steps" / "h.py"
    steps.write_text(STEPS.replace("'RET", "'NEW"), encoding="utf-8")
    again = stepsmith("replay", "day1", "wf", cwd=wf.parent)
    assert again.returncode == 1, again.stdout + again.stderr
    assert_clean(again, "\\x1b]52")


def test_workflow_cases_with_bad_names_are_refused_and_shown_escaped(wf):
    (wf / "fixtures" / "_workflow" / f"{BAD_NAME}.json").write_text(
        json.dumps({"sources": {"numbers": "1"}, "evaluation_time": AT}), encoding="utf-8")
    missing = stepsmith("run-workflow", "wf", "--case", "nosuch", cwd=wf.parent)
    assert missing.returncode == 2, missing.stdout + missing.stderr
    assert_clean(missing, "day1", "not case names, ignored: \\x1b[2K\\x1b[1Aok\\x07")
    named = stepsmith("run-workflow", "wf", "--case", BAD_NAME, cwd=wf.parent)
    assert named.returncode == 2, named.stdout + named.stderr
    assert_clean(named)


def test_review_list_shows_hostile_pending_names_escaped(wf):
    stepsmith("test", "wf", cwd=wf.parent)  # writes the pending change of echo/differs
    pending = wf / ".stepsmith" / "pending" / "echo"
    assert (pending / "differs.json").exists()
    (pending / f"{BAD_NAME}.json").write_bytes((pending / "differs.json").read_bytes())
    done = stepsmith("review", "wf", "--list", cwd=wf.parent)
    assert_clean(done, "\\x1b[2K\\x1b[1Aok\\x07", "UNUSABLE", "not a step id and a valid case name")


def test_check_shows_a_hostile_step_file_name_escaped(tmp_path):
    name = f"steps/{ESC}[2K{CSI}h.py"
    wf = write(tmp_path / "wf", step_file=name)
    (wf / name).write_text("import os\n\n\n" + STEPS, encoding="utf-8")
    done = stepsmith("check", "wf", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert_clean(done, "steps/\\x1b[2K\\x9bh.py", "SS101")


def test_pytest_plugin_reports_escaped(wf):
    done = subprocess.run([sys.executable, "-m", "pytest", "--stepsmith", "wf", "-v", "-rA",
                           "-p", "no:cacheprovider", "--junit-xml", "pytest.xml"],
                          cwd=wf.parent, capture_output=True, text=True, encoding="utf-8",
                          errors="surrogateescape", timeout=300, env=_env(), check=False)
    assert done.returncode == 1, done.stdout[-3000:]
    assert_clean(done, "MSG\\x1b]52", "OUT\\x1b]52")
    ET.parse(wf.parent / "pytest.xml")


def test_on_a_real_terminal_only_richs_own_styling_reaches_it(wf):
    """Under a pseudo-terminal rich styles its output and draws the progress bar (cursor
    movement of its own): still no OSC (clipboard, links), BEL or C1 reaches the terminal,
    and the data's sequences are shown as escapes."""
    import os
    import pty

    master, slave = pty.openpty()
    env = _env()
    env.update(TERM="xterm-256color", COLUMNS="160", LINES="50")
    proc = subprocess.Popen([sys.executable, "-m", "stepsmith.runner.cli", "test", "wf", "-v",
                             "-s"], cwd=wf.parent, stdin=slave, stdout=slave, stderr=slave,
                            env=env, close_fds=True)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child side closed
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=180)
    os.close(master)
    out = b"".join(chunks).decode("utf-8", "replace")
    assert proc.returncode == 1, out[-2000:]
    assert "\x1b[" in out, "rich styled its output: this was a terminal"
    assert "\x1b]" not in out and "\x07" not in out and "\x9b" not in out, repr(out[-2000:])
    assert not re.search("[\x80-\x9f]", out)
    # every ESC left is a CSI sequence (SGR or cursor movement), rich's own
    assert not re.search(r"\x1b(?!\[[0-9;?]*[A-Za-z])", out), repr(out[-2000:])
    assert "MSG\\x1b]52;c;ZXZpbA==\\x07" in out and "\\x1b[1A\\x1b[2KPASSED" in out
