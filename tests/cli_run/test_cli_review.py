"""The fixture loop through the CLI (issue 11): pending outputs, `stepsmith review`,
`stepsmith test --update`, captured stdout, and every refusal."""

import hashlib
import json
import os
import shutil
import subprocess
import sys

import pytest
from stepsmith.runner.cli import main
from wfkit import PRINTING

pytestmark = pytest.mark.usefixtures("sandbox")


def cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def wf(tmp_path, kit, monkeypatch):
    """A workflow whose add/simple fixture expects 1.5 while the step returns 1.50."""
    monkeypatch.chdir(tmp_path)
    fx = {"add/simple": kit.add_case("1.00", None, "1.5"),
          "add/both": kit.add_case("1.00", "2.25", "3.25")}
    return kit.write_workflow(tmp_path / "wf", files={"steps/calc.py": PRINTING}, fixtures=fx)


def pending_file(wf, step="add", case="simple"):
    return wf / ".stepsmith" / "pending" / step / f"{case}.json"


def test_failing_fixture_writes_a_pending_change_and_leaves_the_fixture(wf, capsys):
    fixture = wf / "fixtures" / "add" / "simple.json"
    before = fixture.read_bytes()
    code, out, _ = cli(capsys, "test", "wf")
    assert code == 1
    assert fixture.read_bytes() == before
    doc = json.loads(pending_file(wf).read_text())
    assert doc["fixture"] == "fixtures/add/simple.json"
    assert doc["fixture_sha256"] == hashlib.sha256(before).hexdigest()
    assert doc["new"]["expected"] == {"output": {"sum": "1.50"}, "effects": []}
    assert doc["new"]["inputs"] == {"a": "1.00"}
    assert not pending_file(wf, case="both").exists()  # passing: nothing pending
    assert (wf / ".stepsmith" / ".gitignore").read_text().endswith("*\n")  # never committed
    assert "1 pending change(s) written; review them with `stepsmith review wf`" in out
    # the captured stdout section of the failing fixture
    assert "captured stdout" in out and "adding 1.00 0.50" in out
    assert out.count("adding") == 1  # the passing fixture's stdout only with -s


def test_dash_s_shows_stdout_of_passing_fixtures(wf, capsys):
    _, out, _ = cli(capsys, "test", "wf", "-s")
    assert "PASSED wf::add::both" in out and "adding 1.00 2.25" in out


def test_review_accept_then_test_passes(wf, capsys):
    cli(capsys, "test", "wf")
    code, out, _ = cli(capsys, "review", "wf", "--accept")
    assert code == 0
    assert "accepted wf::add::simple" in out and "accepted 1, rejected 0, skipped 0" in out
    assert not pending_file(wf).exists()
    doc = json.loads((wf / "fixtures" / "add" / "simple.json").read_text())
    assert doc["expected"]["output"] == {"sum": "1.50"}
    assert cli(capsys, "test", "wf")[0] == 0


def test_review_list_shows_the_readable_diff(wf, capsys):
    cli(capsys, "test", "wf")
    code, out, _ = cli(capsys, "review", "wf", "--list")
    assert code == 0
    assert "changed output wf::add::simple" in out
    assert ('expected.output.sum: expected "1.5", got "1.50" '
            "(1.5 vs 1.50: equal value, different scale)") in out


def test_review_reject_drops_the_change(wf, capsys):
    cli(capsys, "test", "wf")
    before = (wf / "fixtures" / "add" / "simple.json").read_bytes()
    code, out, _ = cli(capsys, "review", "wf", "--reject")
    assert code == 0 and "accepted 0, rejected 1, skipped 0" in out
    assert not pending_file(wf).exists()
    assert (wf / "fixtures" / "add" / "simple.json").read_bytes() == before


def test_review_selects_with_k(wf, capsys, kit):
    kit.write_fixture(wf, "add/other", kit.add_case("2.00", None, "2.5"))
    cli(capsys, "test", "wf")
    code, out, _ = cli(capsys, "review", "wf", "-k", "other and not simple", "--accept")
    assert code == 0 and "accepted 1, rejected 0, skipped 0" in out
    assert pending_file(wf).exists() and not pending_file(wf, case="other").exists()
    assert cli(capsys, "review", "wf", "-k", "(", "--accept")[0] == 2


def test_review_a_path_inside_the_workflow_narrows_to_it(wf, capsys, kit):
    kit.write_fixture(wf, "add/other", kit.add_case("2.00", None, "2.5"))
    cli(capsys, "test", "wf")
    code, out, _ = cli(capsys, "review", wf / "fixtures" / "add" / "other.json", "--accept")
    assert code == 0 and "accepted 1, rejected 0, skipped 0" in out
    assert pending_file(wf).exists() and not pending_file(wf, case="other").exists()
    code, out, _ = cli(capsys, "review", wf / "fixtures" / "add", "--reject")
    assert code == 0 and "rejected 1" in out and not pending_file(wf).exists()


def test_passing_again_drops_a_stale_pending_change(wf, capsys):
    cli(capsys, "test", "wf")
    f = wf / "fixtures" / "add" / "simple.json"
    doc = json.loads(f.read_text())
    doc["expected"]["output"]["sum"] = "1.50"
    f.write_text(json.dumps(doc))
    assert cli(capsys, "test", "wf")[0] == 0
    assert not pending_file(wf).exists()


def test_test_update_runs_and_accepts(wf, capsys):
    code, out, _ = cli(capsys, "test", "wf", "--update")
    assert code == 0, out
    assert "--update: accepted 1, rejected 0, skipped 0" in out
    assert cli(capsys, "test", "wf")[0] == 0


def test_status_and_error_changes_are_accepted_too(tmp_path, kit, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    fx = kit.passing_fixtures()
    fx["boom/raises"]["expected"] = {"output": {"fine": True}}  # it raises now
    fx["add/simple"]["expected"] = {"error": {"type": "ValueError"}}  # it returns now
    kit.full_workflow(tmp_path / "wf", fx)
    assert cli(capsys, "test", "wf")[0] == 1
    code, out, _ = cli(capsys, "review", "wf", "--accept")
    assert code == 0 and "accepted 2" in out
    boom = json.loads((tmp_path / "wf/fixtures/boom/raises.json").read_text())
    assert boom["expected"] == {"error": {"type": "ValueError", "message": "bad amount x"}}
    assert cli(capsys, "test", "wf")[0] == 0


# -- refusals ----------------------------------------------------------------------------

def test_accept_refused_when_the_fixture_changed_since(wf, capsys):
    cli(capsys, "test", "wf")
    f = wf / "fixtures" / "add" / "simple.json"
    edited = f.read_text().replace('"1.5"', '"7.5"')
    f.write_text(edited)
    code, out, err = cli(capsys, "review", "wf", "--accept")
    assert code == 1
    assert "REFUSED wf::add::simple" in err
    assert "changed since the pending result was computed; not overwritten" in err
    assert "accepted 0, rejected 0, skipped 0, refused 1" in out
    assert f.read_text() == edited and pending_file(wf).exists()


def test_accept_in_a_read_only_folder_writes_nothing_and_keeps_the_change(wf, capsys):
    cli(capsys, "test", "wf")
    folder = wf / "fixtures" / "add"
    before = (folder / "simple.json").read_bytes()
    cmd = [sys.executable, "-m", "stepsmith.runner.cli", "review", str(wf), "--accept"]
    if os.geteuid() == 0:  # root ignores mode bits: a real read-only mount instead
        script = (f"mount --bind {folder} {folder} && mount -o remount,bind,ro {folder} && "
                  + " ".join(cmd))
        cmd = ["unshare", "-m", "sh", "-c", script]
    else:
        folder.chmod(0o555)
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False)
    finally:
        folder.chmod(0o755)
    assert p.returncode == 1, p.stdout + p.stderr
    assert "REFUSED wf::add::simple: cannot write" in p.stderr
    assert "nothing written, the pending change is kept" in p.stderr
    assert (folder / "simple.json").read_bytes() == before
    assert pending_file(wf).exists()
    assert not [x for x in folder.iterdir() if x.name.startswith(".")]  # no temp left


def test_corrupt_pending_file_is_refused_and_can_be_rejected(wf, capsys):
    cli(capsys, "test", "wf")
    pending_file(wf).write_text('{"stepsmith_pending": 1, "new": ')
    code, _, err = cli(capsys, "review", "wf", "--accept")
    assert code == 1 and "corrupt pending file" in err
    code, _, _ = cli(capsys, "review", "wf", "--reject")
    assert code == 0 and not pending_file(wf).exists()


def test_pending_file_pointing_outside_is_refused(wf, capsys, tmp_path):
    cli(capsys, "test", "wf")
    doc = json.loads(pending_file(wf).read_text())
    outside = tmp_path / "victim.json"
    outside.write_text("{}")
    for target in ("../../victim.json", str(outside), "fixtures/double/simple.json"):
        doc["fixture"] = target
        pending_file(wf).write_text(json.dumps(doc))
        code, _, err = cli(capsys, "review", "wf", "--accept")
        assert code == 1 and "a pending change may only replace the fixture it is named for" in err
    assert outside.read_text() == "{}"


def test_symlinked_fixture_folder_is_refused(wf, capsys, tmp_path):
    cli(capsys, "test", "wf")
    elsewhere = tmp_path / "elsewhere"
    shutil.move(wf / "fixtures" / "add", elsewhere)
    (wf / "fixtures" / "add").symlink_to(elsewhere)
    before = (elsewhere / "simple.json").read_bytes()
    code, _, err = cli(capsys, "review", "wf", "--accept")
    assert code == 1 and "add: is a symlink; stepsmith does not follow it" in err
    assert (elsewhere / "simple.json").read_bytes() == before


def test_symlinked_pending_folder_is_never_written_through(wf, capsys, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (wf / ".stepsmith").mkdir()
    (wf / ".stepsmith" / "pending").symlink_to(elsewhere)
    code, _, err = cli(capsys, "test", "wf")
    assert code == 1
    assert "pending change not written" in err and "symlink" in err
    assert list(elsewhere.iterdir()) == []


def test_review_without_a_terminal_is_refused_with_a_hint(wf):
    p = subprocess.run([sys.executable, "-m", "stepsmith.runner.cli", "review", str(wf)],
                       capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60,
                       check=False)
    assert p.returncode == 2
    assert "needs a terminal; use --accept or --reject" in p.stderr


def test_nothing_pending(wf, capsys):
    code, out, _ = cli(capsys, "review", "wf", "--accept")
    assert code == 0 and "no pending fixture changes" in out
