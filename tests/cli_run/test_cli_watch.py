"""`stepsmith test --watch` and `check --watch`: a real process, real file edits, its output
read as a user reads the terminal; Ctrl-C ends it cleanly with no sandbox left behind."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.usefixtures("sandbox")
STEPSMITH = [sys.executable, "-m", "stepsmith.runner.cli"]


class Watcher:
    def __init__(self, cwd: Path, *argv: str):
        self.proc = subprocess.Popen([*STEPSMITH, *argv], cwd=cwd, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, start_new_session=True,
                                     env={**os.environ, "COLUMNS": "200"})
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def _arriving(self, seconds: float, poll: float):
        """The lines as they arrive for `seconds` (None once the watcher has exited)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                yield self.lines.get(timeout=poll)
            except queue.Empty:
                continue

    def screen(self, timeout: float = 90) -> list[str]:
        """The lines up to the next "waiting for changes" (one run's screen)."""
        got = []
        for line in self._arriving(timeout, 1):
            if line is None:
                raise AssertionError("the watcher exited:\n" + "\n".join(got))
            got.append(line)
            if line.startswith("waiting for changes"):
                return got
        raise AssertionError("no screen in time:\n" + "\n".join(got))

    def quiet(self, seconds: float) -> list[str]:
        """Whatever the watcher prints in the next `seconds` (nothing, when one save made one
        run: a save arrives as several file events)."""
        return [line for line in self._arriving(seconds, 0.1) if line is not None]

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGINT)
        try:
            return self.proc.wait(timeout=30)
        finally:
            if self.proc.poll() is None:
                os.killpg(self.proc.pid, signal.SIGKILL)


def session_members(sid: int) -> list[int]:
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                if os.getsid(int(d)) == sid:
                    out.append(int(d))
            except OSError:
                pass
    return out


def test_test_watch_reruns_only_what_a_change_affects(tmp_path, kit):
    wf = kit.full_workflow(tmp_path / "wf")
    w = Watcher(tmp_path, "test", "--watch", "wf")
    try:
        first = "\n".join(w.screen())
        assert "6 passed" in first and "1 recorded" in first, first
        # break one step: only its fixture runs again, and its failure is on the screen
        (wf / "steps" / "bill.py").write_text(kit.BILL_CODE.replace('len(items)', 'len(items) + 1'))
        second = "\n".join(w.screen())
        assert "re-running 1 of 7 fixture(s)" in second, second
        assert "wf::bill::two" in second and "1 failed" in second, second
        assert w.quiet(2.0) == []  # one save, one run
        # a fixture file edited: that fixture alone
        case = wf / "fixtures" / "add" / "simple.json"
        doc = json.loads(case.read_text())
        doc["expected"]["output"]["sum"] = "9.99"
        case.write_text(json.dumps(doc))
        third = "\n".join(w.screen())
        assert "re-running 1 of 7 fixture(s)" in third and "wf::add::simple" in third, third
        assert w.quiet(2.0) == []
        # a new fixture file is picked up
        (wf / "fixtures" / "add" / "third.json").write_text(json.dumps(
            kit.add_case("2.00", None, "2.50")))
        fourth = "\n".join(w.screen())
        assert "re-running 1 of 8 fixture(s)" in fourth and "1 passed" in fourth, fourth
    finally:
        code = w.stop()
    assert code == 0
    assert session_members(w.proc.pid) == []  # no sandbox (or anything else) left behind


def test_check_watch_rechecks_on_save(tmp_path, kit):
    wf = kit.full_workflow(tmp_path / "wf")
    w = Watcher(tmp_path, "check", "--watch", "wf")
    try:
        assert "All checks passed!" in "\n".join(w.screen())
        (wf / "steps" / "bill.py").write_text("import os\n" + kit.BILL_CODE)
        again = "\n".join(w.screen())
        assert "bill.py:1:8: SS101" in again and "Found 1 problem" in again, again
        (wf / "steps" / "bill.py").write_text(kit.BILL_CODE)
        assert "All checks passed!" in "\n".join(w.screen())
    finally:
        assert w.stop() == 0
