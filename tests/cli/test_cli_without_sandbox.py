"""A machine where the sandbox cannot start (no bubblewrap, no user namespaces: a CI container,
a pre-commit hook in a locked-down shell) still answers `--version`, `--help` and `check`:
none of them runs or probes a sandbox. (How fast they answer is bench/cli.py's.)"""

from __future__ import annotations

import pytest
from stepsmith.runner import sandbox
from stepsmith.runner.cli import main
from stepsmith.runner.sandbox import cmdline


@pytest.fixture
def no_sandbox(monkeypatch):
    def refused(*args, **kwargs):
        raise AssertionError("a sandbox was asked for")

    monkeypatch.setattr(cmdline, "find_bwrap", lambda: None)
    monkeypatch.setattr(sandbox, "sandbox_available", refused)
    monkeypatch.setattr(sandbox, "run_step", refused)
    monkeypatch.setattr(sandbox, "run_unvalidated", refused)


@pytest.mark.parametrize("argv, said", [(["--version"], "stepsmith "),
                                        (["--help"], "usage: stepsmith")])
def test_version_and_help(no_sandbox, capsys, argv, said):
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 0
    assert capsys.readouterr().out.startswith(said)


def test_check(no_sandbox, tmp_path, kit, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    kit.write_workflow(tmp_path / "wf", fixtures={"add/x": kit.add_case("1.00", None, "1.50")})
    assert main(["check", "--no-cache", "wf"]) == 0, capsys.readouterr()
    bad = tmp_path / "wf" / "steps" / "calc.py"
    bad.write_text(bad.read_text().replace('    return {"sum"', '    eval("1")\n    return {"sum"'))
    assert main(["check", "--no-cache", "wf"]) == 1
    assert "SS301" in capsys.readouterr().out
