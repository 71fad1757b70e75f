"""A `check` that really checks (a cache miss, as after an edit) imports
what checking needs and nothing that only running steps does: no sandbox start-up (command
line, supervisor, egress proxy, spares), no fixture runner, no store, no rich."""

import json
import subprocess
import sys

RUN_ONLY = ("stepsmith.runner.sandbox.process", "stepsmith.runner.sandbox.cmdline",
            "stepsmith.runner.sandbox.egress", "stepsmith.runner.sandbox.spares",
            "stepsmith.runner.sandbox.seccomp", "stepsmith.runner.app.invocations",
            "concurrent.futures", "stepsmith.runner.store", "rich")


def test_a_real_check_imports_nothing_that_only_runs_steps(tmp_path, kit):
    kit.write_workflow(tmp_path / "wf", fixtures={"add/x": kit.add_case("1.00", None, "1.50")})
    code = ("import sys, json\n"
            "from stepsmith.runner.cli import main\n"
            "rc = main(['check', '--no-cache', 'wf'])\n"
            f"print('LOADED', json.dumps([rc, [m for m in {RUN_ONLY!r} if m in sys.modules],"
            " 'pydantic' in sys.modules]))\n")
    p = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120, check=False)
    rc, loaded, checked = json.loads(p.stdout.rpartition("LOADED ")[2])
    assert rc == 0 and checked, p.stdout + p.stderr
    assert loaded == []
