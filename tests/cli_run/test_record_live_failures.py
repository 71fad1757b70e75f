"""A failed live call has an unknown outcome (the request may have completed at the
other end), so `record --live` never stores it as the expectation unless asked explicitly
(`--record-failure`), and says so with a non-zero exit code. Real sandbox, real egress proxy:
the call goes to a loopback address, which the proxy refuses (offline, as the issue found)."""

import json

import pytest
from wfkit import cli

pytestmark = pytest.mark.usefixtures("sandbox")
AT = "2026-12-01T07:00:00+00:00"


@pytest.fixture
def egress(tmp_path, kit, monkeypatch):
    monkeypatch.chdir(tmp_path)
    m = kit.demo_manifest()
    m["steps"].append({"id": "fetch", "explanation": "Fetch a page.",
                       "code": "steps/fetch.py:fetch", "inputs": {"url": "http://127.0.0.1:9/"},
                       "network": "public_egress"})
    wf = kit.write_workflow(tmp_path / "wf", m,
                            {"steps/calc.py": kit.ADD_CODE, "steps/fetch.py": kit.FETCH_CODE})
    (tmp_path / "in.json").write_text("{}")
    return wf


def test_a_failed_live_call_is_not_recorded(egress, tmp_path, capsys):
    code, out, err = cli(capsys, "record", egress, "--step", "fetch", "--inputs",
                         tmp_path / "in.json", "--at", AT, "--name", "x", "--live")
    assert code == 1, (out, err)
    assert not (egress / "fixtures" / "fetch" / "x.json").exists()
    assert "not recorded" in err and "--record-failure" in err, err
    assert "unknown" in err  # why: the outcome at the other end is not known


def test_a_failed_live_call_is_recorded_when_asked(egress, tmp_path, capsys):
    code, out, err = cli(capsys, "record", egress, "--step", "fetch", "--inputs",
                         tmp_path / "in.json", "--at", AT, "--name", "x", "--live",
                         "--record-failure")
    assert code == 0, (out, err)
    doc = json.loads((egress / "fixtures" / "fetch" / "x.json").read_text())
    assert "error" in doc["expected"] or "status" in doc["expected"]
    assert "recorded" in out and "failed live call" in out


def test_a_failed_live_call_in_a_case_recording_is_not_recorded(egress, capsys):
    (egress / "fixtures" / "_workflow").mkdir(parents=True)
    (egress / "fixtures" / "_workflow" / "day1.json").write_text(json.dumps(
        {"sources": {"numbers": "1.00"}, "evaluation_time": AT}))
    code, out, err = cli(capsys, "record", egress, "--case", "day1", "--live")
    assert code == 1, (out, err)
    assert not (egress / "fixtures" / "fetch" / "day1.json").exists()
    assert "outcome at the other end is unknown" in out + err
    assert (egress / "fixtures" / "add" / "day1.json").exists()  # the other steps still are
