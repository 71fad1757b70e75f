"""`[tool.stepsmith]` / stepsmith.toml settings (found upward, limits never above
the engine's ceiling, unknown settings refused), `--show-settings`, `stepsmith init`,
`--version`. Real sandbox for the limits and the scaffold's test run."""

import json
import platform

import pytest
from wfkit import cli

pytestmark = pytest.mark.usefixtures("sandbox")

BIG = '''\
def big(n):
    block = bytearray(n * 1024 * 1024)
    return {"size": len(block)}
'''




def big_wf(kit, root):
    m = kit.demo_manifest(steps=[{"id": "big", "explanation": "Allocates n MiB.",
                                  "code": "steps/big.py:big", "inputs": {"n": 150}}])
    return kit.write_workflow(root, m, {"steps/big.py": BIG}, fixtures={
        "big/alloc": {"inputs": {}, "evaluation_time": None,
                      "expected": {"output": {"size": 150 * 1024 * 1024}}}})


def test_limits_from_pyproject_found_upward_apply(kit, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    wf = big_wf(kit, tmp_path / "flows" / "wf")
    assert cli(capsys, "test", wf)[0] == 0  # 150 MiB fits the engine's 256 MiB
    (tmp_path / "pyproject.toml").write_text(
        "[project]\nname = 'x'\n\n[tool.stepsmith.limits]\nmemory_mb = 128\n")
    code, out, _ = cli(capsys, "test", wf)
    assert code == 1 and "memory_limit" in out
    code, out, _ = cli(capsys, "--show-settings")
    assert code == 0
    line = next(ln for ln in out.splitlines() if ln.startswith("limits.memory_mb"))
    assert line.startswith("limits.memory_mb = 128") and "pyproject.toml [tool.stepsmith]" in line
    assert "limits.cpu_seconds = 2  # default (the engine's value)" in out


def test_default_settings_give_the_engines_limits_and_lower_them():
    from stepsmith.runner import limits, sandbox
    from stepsmith.runner.settings import ENGINE_LIMITS, Settings

    assert sandbox.Limits is limits.Limits  # one type: the sandbox enforces what settings make
    assert Settings().sandbox_limits() == sandbox.Limits()
    assert ENGINE_LIMITS == {"cpu_seconds": 2, "wall_seconds": 5.0, "memory_mb": 256,
                             "output_kb": 256}
    lowered = Settings(limits={"cpu_seconds": 1, "wall_seconds": 0.5, "memory_mb": 64,
                               "output_kb": 1}).sandbox_limits()
    assert lowered == sandbox.Limits(cpu_seconds=1, wall_seconds=0.5,
                                     memory_bytes=64 * 1024 * 1024, output_bytes=1024)


def test_stepsmith_toml_paths_and_jobs(kit, tmp_path, capsys, monkeypatch):
    kit.full_workflow(tmp_path / "flows" / "wf")
    (tmp_path / "stepsmith.toml").write_text('paths = ["flows"]\njobs = 1\n')
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")  # found upward
    code, out, _ = cli(capsys, "test", "--format", "json")
    assert code == 0 and len(json.loads(out)["results"]) == 7
    code, out, _ = cli(capsys, "--show-settings")
    assert 'paths = ["' in out and "stepsmith.toml" in out and "jobs = 1" in out
    code, out, _ = cli(capsys, "check")
    assert code == 0 and "All checks passed!" in out


@pytest.mark.parametrize("text,fragment", [
    ("[tool.stepsmith]\njbos = 2\n", "unknown setting 'jbos'; did you mean 'jobs'?"),
    ("[tool.stepsmith.limits]\ncpu_secs = 1\n", "unknown setting 'cpu_secs'; did you mean "
     "'cpu_seconds'?"),
    ("[tool.stepsmith.limits]\ncpu_seconds = 30\n", "limits.cpu_seconds = 30 is above the "
     "engine's ceiling 2"),
    ("[tool.stepsmith.limits]\nmemory_mb = 4096\n", "above the engine's ceiling 256"),
    ("[tool.stepsmith.limits]\nwall_seconds = 0\n", "below the minimum"),
    ("[tool.stepsmith]\njobs = 0\n", "jobs must be an integer from 1"),
    ("[tool.stepsmith]\njobs = true\n", "jobs must be an integer"),
    ("[tool.stepsmith]\npaths = []\n", "paths must be a non-empty list"),
    ("[tool.stepsmith\n", "invalid TOML"),
])
def test_bad_settings_are_exit_2_naming_them(kit, tmp_path, capsys, monkeypatch, text,
                                             fragment):
    kit.full_workflow(tmp_path / "wf")
    (tmp_path / "pyproject.toml").write_text(text)
    monkeypatch.chdir(tmp_path)
    for argv in (["test", "wf"], ["check", "wf"], ["--show-settings"]):
        code, out, err = cli(capsys, *argv)
        assert code == 2 and fragment in err and "pyproject.toml" in err, (argv, err)
    code, out, _ = cli(capsys, "test", "wf", "--format", "json")
    assert code == 2 and fragment in json.loads(out)["error"]


def test_init_scaffolds_a_workflow_that_passes_check_and_test(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = cli(capsys, "init", "ledger-recon")
    assert code == 0, err
    assert "created workflow 'ledger-recon'" in out
    assert cli(capsys, "check", "ledger-recon")[0] == 0
    code, out, _ = cli(capsys, "test", "ledger-recon")
    assert code == 0 and "1 passed" in out
    # refuses to overwrite, writes nothing
    before = (tmp_path / "ledger-recon" / "steps" / "total.py").read_text() + "# mine\n"
    (tmp_path / "ledger-recon" / "steps" / "total.py").write_text(before)
    code, _, err = cli(capsys, "init", "ledger-recon")
    assert code == 2 and "not overwriting" in err and "workflow.yaml" in err
    assert (tmp_path / "ledger-recon" / "steps" / "total.py").read_text() == before


def test_init_name_and_bad_inputs(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = cli(capsys, "init", "Some Folder", "--name", "payments")
    assert code == 0 and "workflow: payments" in (tmp_path / "Some Folder" /
                                                  "workflow.yaml").read_text()
    code, _, err = cli(capsys, "init", "x", "--name", "Bad Name")
    assert code == 2 and "not a workflow slug" in err and not (tmp_path / "x").exists()
    (tmp_path / "file").write_text("")
    code, _, err = cli(capsys, "init", "file")
    assert code == 2 and "not a folder" in err
    code, _, _ = cli(capsys, "init", "9-lives")
    assert code == 0 and "workflow: lives" in (tmp_path / "9-lives" / "workflow.yaml").read_text()


def test_version_prints_the_runtime_identity(capsys):
    """Issue 20: `--version` names the harness version and Python at once (no sandbox import,
    no hashing: tests/cli/test_cli_startup_imports.py); the whole identity with the harness
    source hash is in `--show-settings`."""
    from stepsmith.runner.store.identity import runtime_identity

    code, out, _ = cli(capsys, "--version")
    ident = runtime_identity()
    assert code == 0
    assert out.startswith("stepsmith 0.")
    assert ident.harness_version in out
    assert f"Python {platform.python_version()}" in out
    code, out, _ = cli(capsys, "--show-settings")
    assert code == 0 and ident.harness_source_sha256[:12] in out
