"""Every node id or command stepsmith prints works when pasted in the folder where
it was printed. Inside `recon/`, ids read `recon::step::case` and hints say `stepsmith record
recon --case day1`: both must work there (as pytest's node ids do from where pytest printed
them). Real CLI, real sandbox."""

import json
import re

import pytest
from wfkit import cli

pytestmark = pytest.mark.usefixtures("sandbox")
AT = "2026-12-01T07:00:00+00:00"


@pytest.fixture
def recon(tmp_path, kit, monkeypatch):
    fx = kit.passing_fixtures()
    fx = {k: v for k, v in fx.items() if k.startswith(("add/", "double/"))}
    fx["add/simple"]["expected"]["output"]["sum"] = "1.5"  # fails: its id is printed
    wf = kit.write_workflow(tmp_path / "recon", fixtures=fx)
    (wf / "fixtures" / "_workflow").mkdir()
    (wf / "fixtures" / "_workflow" / "day1.json").write_text(json.dumps(
        {"sources": {"numbers": "1.00"}, "evaluation_time": AT}))
    monkeypatch.chdir(wf)
    return wf


def test_printed_node_ids_work_pasted_inside_the_folder(recon, capsys):
    code, out, err = cli(capsys, "test")
    assert code == 1
    (failed,) = re.findall(r"FAILED (\S+)", out)
    assert failed == "recon::add::simple"
    code, out, err = cli(capsys, "test", failed)
    assert code == 1 and "0 passed, 1 failed" in out, out + err
    code, out, err = cli(capsys, "test", "recon::add::both")
    assert code == 0 and "1 passed, 0 failed" in out, out + err
    code, out, err = cli(capsys, "test", "recon/fixtures/add/both.json")
    assert code == 0 and "1 passed, 0 failed" in out, out + err


def test_printed_record_hint_works_pasted_inside_the_folder(recon, capsys):
    code, out, err = cli(capsys, "record", ".", "--case", "day1", "--name", "d1")
    assert code == 0, out + err
    # the upstream fixture changes: the stale warning names the command that refreshes it
    up = recon / "fixtures" / "add" / "d1.json"
    doc = json.loads(up.read_text())
    doc["expected"]["output"]["sum"] = "7.00"
    up.write_text(json.dumps(doc))
    code, out, err = cli(capsys, "test", "-k", "d1")
    (hint,) = re.findall(r"`(stepsmith record [^`]+)`", out)
    assert hint.startswith("stepsmith record recon ")
    code, out, err = cli(capsys, *hint.split()[1:])
    assert code == 0, out + err
    code, out, err = cli(capsys, "review", "recon", "--accept")
    assert code == 0, out + err


def test_a_real_path_still_wins(recon, capsys):
    (recon / "recon").mkdir()  # a sub-folder of that name: no workflow there
    code, out, err = cli(capsys, "test", "recon::add::both")
    assert code != 0
