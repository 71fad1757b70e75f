"""`stepsmith test` start-up: the sandbox probe (a real sandbox run) starts before the
workflows are loaded and runs while they are, and the one probe of a process answers every
caller, however many ask at once; what printing the outcome imports loads while the fixtures
run."""

import json
import threading
import time

import pytest
from stepsmith.runner import sandbox
from stepsmith.runner.app import suite
from stepsmith.runner.cli import main

pytestmark = pytest.mark.usefixtures("sandbox")


def test_the_probe_runs_while_the_workflows_load(tmp_path, kit, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    kit.write_workflow(tmp_path / "wf", fixtures={"add/x": kit.add_case("1.00", None, "1.50")})
    probing = threading.Event()
    probes, loads = [], []
    real_load, real_probe = suite.load_one, sandbox.sandbox_available

    def load(*a, **k):  # the probe has started by the time the workflows load
        loads.append(probing.wait(30))
        return real_load(*a, **k)

    def probe():
        probes.append(threading.current_thread().name)
        probing.set()
        return real_probe()

    monkeypatch.setattr(sandbox, "sandbox_available", probe)
    monkeypatch.setattr(suite, "load_one", load)
    assert main(["test", "wf"]) == 0, capsys.readouterr()
    assert loads == [True] and probes[0] == "stepsmith-probe"


def test_collect_only_probes_nothing(tmp_path, kit, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    kit.write_workflow(tmp_path / "wf", fixtures={"add/x": kit.add_case("1.00", None, "1.50")})
    monkeypatch.setattr(sandbox, "sandbox_available", lambda: pytest.fail("probed"))
    assert main(["test", "wf", "--co"]) == 0


def test_concurrent_callers_share_one_probe(monkeypatch):
    from stepsmith.runner.sandbox import cmdline, seccomp

    runs = []

    def slow_probe(*a, **k):
        runs.append(1)
        time.sleep(0.3)
        return sandbox.StepResult("ok", output=1)

    monkeypatch.setattr(sandbox, "_available", None)
    monkeypatch.setattr(cmdline, "layout", lambda: {"bwrap": "/bwrap", "exe": "/python"})
    monkeypatch.setattr(seccomp, "bpf", lambda live: b"")
    monkeypatch.setattr(sandbox, "_execute", slow_probe)
    answers = []
    threads = [threading.Thread(target=lambda: answers.append(sandbox.sandbox_available()))
               for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert runs == [1] and len(answers) == 3 and all(a[0] for a in answers)


def test_the_report_modules_load_while_the_fixtures_run(tmp_path, kit):
    import subprocess
    import sys

    kit.write_workflow(tmp_path / "wf", fixtures={"add/x": kit.add_case("1.00", None, "1.50")})
    code = (
        "import sys, threading, json\n"
        "from stepsmith.runner.app import case_run\n"
        "from stepsmith.runner.cli import main, test\n"
        "seen = {}\n"
        "real = case_run.run_cases\n"
        "def run_cases(*a, **k):\n"
        "    out = real(*a, **k)\n"
        "    for t in threading.enumerate():\n"
        "        if t.name == 'stepsmith-report-imports':\n"
        "            t.join(30)\n"
        "    seen['loaded'] = [m for m in test.REPORT_MODULES if m in sys.modules]\n"
        "    return out\n"
        "case_run.run_cases = run_cases\n"
        "rc = main(['test', 'wf'])\n"
        "print('SEEN', json.dumps([rc, seen['loaded']]))\n")
    p = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120, check=False)
    rc, loaded = json.loads(p.stdout.rpartition("SEEN ")[2])
    assert rc == 0, p.stdout + p.stderr
    from stepsmith.runner.cli.test import REPORT_MODULES

    assert loaded == list(REPORT_MODULES)
