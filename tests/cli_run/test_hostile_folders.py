"""A cloned folder's symlinks never make stepsmith read past a hard cap, read
a host file, or write outside the folder. Canary: a root-only (0600) host file outside the
folder. The commands run in a child process under RLIMIT_AS, so the old unbounded read fails
fast (MemoryError) instead of waking the OOM killer."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.usefixtures("sandbox")
CANARY = "canary-host-file-0600-" + "9f3e1a"
AT = "2026-12-01T07:00:00+00:00"


def stepsmith(*argv, cwd, limit_gb=1):
    code = textwrap.dedent(f"""
        import resource, sys
        resource.setrlimit(resource.RLIMIT_AS, ({limit_gb} << 30, {limit_gb} << 30))
        from stepsmith.runner.cli import main
        sys.exit(main(sys.argv[1:]))
    """)
    return subprocess.run([sys.executable, "-c", code, *map(str, argv)], cwd=cwd, text=True,
                          capture_output=True, timeout=120)


@pytest.fixture
def host_secret(tmp_path):
    d = tmp_path / "host"
    d.mkdir()
    f = d / "secret"
    f.write_text(f"- {CANARY} is a list item, so the manifest is not a mapping\n")
    f.chmod(0o600)
    return f


def test_check_on_a_dev_zero_manifest_is_bounded(tmp_path):
    sub = tmp_path / "sub"
    sub.mkdir()
    os.symlink("/dev/zero", sub / "workflow.yaml")
    done = stepsmith("check", "sub", cwd=tmp_path)
    assert "MemoryError" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "workflow.yaml" in done.stdout + done.stderr


def test_check_never_quotes_a_symlinked_host_manifest(tmp_path, host_secret):
    sub = tmp_path / "sub"
    sub.mkdir()
    os.symlink(host_secret, sub / "workflow.yaml")
    done = stepsmith("check", "sub", "--format", "json", cwd=tmp_path)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert CANARY not in done.stdout + done.stderr
    assert "outside the workflow folder" in done.stdout, done.stdout


def test_check_never_reads_a_symlinked_host_step_file(tmp_path, kit, host_secret):
    wf = kit.full_workflow(tmp_path / "wf", fixtures={})
    target = wf / "steps" / "calc.py"
    target.unlink()
    host_py = host_secret.parent / "calc.py"
    host_py.write_text(f"import os\n\ndef add(a):\n    return '{CANARY}'\n")
    host_py.chmod(0o600)
    os.symlink(host_py, target)
    done = stepsmith("check", wf, "--format", "json", cwd=tmp_path)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert CANARY not in done.stdout + done.stderr
    assert "SS101" not in done.stdout  # the host file's `import os` was never validated


def test_symlinked_and_device_fixtures_are_refused(tmp_path, kit, host_secret):
    wf = kit.full_workflow(tmp_path / "wf", fixtures={})
    fx = wf / "fixtures" / "add"
    fx.mkdir(parents=True, exist_ok=True)
    doc = {"inputs": {"a": CANARY}, "evaluation_time": AT, "expected": {"output": CANARY}}
    host_json = host_secret.parent / "case.json"
    host_json.write_text(json.dumps(doc))
    host_json.chmod(0o600)
    os.symlink(host_json, fx / "stolen.json")
    os.symlink("/dev/zero", fx / "zero.json")
    done = stepsmith("test", wf, cwd=tmp_path)
    out = done.stdout + done.stderr
    assert "MemoryError" not in out and "Traceback" not in out, out
    assert CANARY not in out
    assert done.returncode == 1, out
    assert "stolen" in out and "zero" in out


def test_record_refuses_a_symlinked_fixture_folder(tmp_path, kit):
    wf = kit.full_workflow(tmp_path / "wf", fixtures={})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    fixtures = wf / "fixtures"
    fixtures.mkdir(exist_ok=True)
    if (fixtures / "add").exists():
        import shutil

        shutil.rmtree(fixtures / "add")
    os.symlink(elsewhere, fixtures / "add")
    inputs = tmp_path / "in.json"
    inputs.write_text(json.dumps({"a": "1.00"}))
    done = stepsmith("record", wf, "--step", "add", "--inputs", inputs, "--at", AT,
                     "--name", "x", cwd=tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "symlink" in done.stderr, done.stderr
    assert list(elsewhere.iterdir()) == []


def test_store_refuses_a_symlinked_stepsmith_dir(tmp_path, kit):
    wf = kit.run_workflow_dir(tmp_path / "wf")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    if (wf / ".stepsmith").exists():
        import shutil

        shutil.rmtree(wf / ".stepsmith")
    os.symlink(elsewhere, wf / ".stepsmith")
    cases = [p.stem for p in (wf / "fixtures" / "_workflow").glob("*.json")]
    assert cases, "the kit workflow has a workflow case"
    done = stepsmith("run-workflow", wf, "--case", cases[0], cwd=tmp_path)
    assert done.returncode != 0, (done.stdout, done.stderr)
    assert "symlink" in done.stdout + done.stderr, done.stdout + done.stderr
    assert list(elsewhere.iterdir()) == []


def _failing_add(wf):
    p = wf / "fixtures" / "add" / "simple.json"
    doc = json.loads(p.read_text())
    doc["expected"]["output"]["sum"] = "9.99"
    p.write_text(json.dumps(doc))


def test_lf_state_is_never_written_through_a_symlinked_stepsmith_dir(tmp_path, kit):
    wf = kit.full_workflow(tmp_path / "wf")
    _failing_add(wf)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    if (wf / ".stepsmith").exists():
        import shutil

        shutil.rmtree(wf / ".stepsmith")
    os.symlink(elsewhere, wf / ".stepsmith")
    done = stepsmith("test", wf, cwd=tmp_path)
    assert done.returncode == 1, (done.stdout, done.stderr)  # the failure is still reported
    assert "Traceback" not in done.stderr, done.stderr
    assert list(elsewhere.iterdir()) == []


def test_lf_state_is_never_read_through_a_symlink_or_unbounded(tmp_path, kit, host_secret):
    wf = kit.full_workflow(tmp_path / "wf")
    (wf / ".stepsmith").mkdir(exist_ok=True)
    state = wf / ".stepsmith" / "lastfailed.json"
    host_secret.write_text(json.dumps({"failed": ["add::simple"]}))
    for target in (host_secret, "/dev/zero"):
        if os.path.lexists(state):
            state.unlink()
        os.symlink(target, state)
        done = stepsmith("test", wf, "--lf", cwd=tmp_path)
        assert "MemoryError" not in done.stderr and "Traceback" not in done.stderr, done.stderr
        # the shipped state was not taken: --lf runs everything
        assert done.returncode == 0 and "no previously failed fixtures" in done.stdout, done.stdout
        assert os.path.islink(state)  # and the state was not written through the link
    assert json.loads(host_secret.read_text()) == {"failed": ["add::simple"]}
