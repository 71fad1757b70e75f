"""Past ten workflows the per-workflow table lists only those that did not
pass (the summary line stays in view; `--table` lists all); on a terminal the progress bar
counts failures as they come. Real CLI, real sandbox, a real pty."""

import os
import pty
import re
import select
import subprocess
import sys

import pytest
from stepsmith.runner.cli import main

pytestmark = pytest.mark.usefixtures("sandbox")


@pytest.fixture
def many(tmp_path, kit, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for i in range(12):
        want = "1.50" if i != 7 else "9"
        kit.write_workflow(tmp_path / f"wf{i:02d}",
                           fixtures={"add/one": kit.add_case("1.00", None, want)})
    return tmp_path


def test_a_long_table_is_summarised(many, capsys):
    code = main(["test", "."])
    out = capsys.readouterr().out
    assert code == 1
    rows = re.findall(r"^│ (wf\d\d)", out, re.M)
    assert rows == ["wf07"], out
    assert "11 more workflow(s) passed (--table lists every one)" in out
    assert "11 passed, 1 failed" in out
    main(["test", ".", "--table"])
    out = capsys.readouterr().out
    assert len(re.findall(r"^│ (wf\d\d)", out, re.M)) == 12


def test_the_progress_bar_counts_failures(many):
    master, slave = pty.openpty()
    env = dict(os.environ, COLUMNS="120")
    p = subprocess.Popen([sys.executable, "-m", "stepsmith.runner.cli", "test", ".", "-j", "1"],
                         stdin=slave, stdout=slave, stderr=slave, cwd=many, env=env,
                         close_fds=True)
    os.close(slave)
    chunks = []
    while True:
        r, _, _ = select.select([master], [], [], 60)
        if not r:
            break
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    p.wait(timeout=60)
    text = b"".join(chunks).decode("utf-8", "replace")
    assert "1 failed" in text and "0 failed" in text  # counted as the run went
    assert "collecting fixtures" in text
