"""`pytest --stepsmith PATH`: every fixture is a pytest item (real pytest in a subprocess,
real sandbox)."""

import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
from pytest_kit import pytest_run

pytestmark = pytest.mark.usefixtures("sandbox")


def test_collects_fixtures_as_items_with_stable_node_ids(tmp_path, kit):
    kit.full_workflow(tmp_path / "flows" / "wf")
    # through the pytest11 entry point, as every pytest run of an installed stepsmith loads it
    code, out = pytest_run(tmp_path, "--stepsmith", "flows", "--co", "-q", autoload=True)
    assert code == 0, out
    ids = [line for line in out.splitlines() if "::" in line]
    assert ids == ["flows/wf::add::both", "flows/wf::add::simple", "flows/wf::bill::two",
                   "flows/wf::boom::raises", "flows/wf::clock::pinned",
                   "flows/wf::double::from-add", "flows/wf::fetch::recorded"]


def test_run_k_junit_and_failure_diff(tmp_path, kit):
    fx = kit.passing_fixtures()
    fx["add/simple"]["expected"]["output"]["sum"] = "1.5"
    kit.full_workflow(tmp_path / "wf", fx)
    code, out = pytest_run(tmp_path, "--stepsmith", "wf", "--junitxml", "j.xml")
    assert code == 1
    assert "5 passed, 1 recorded" in out and "1 failed" in out
    assert 'output.sum: expected "1.5", got "1.50"' in out
    assert "FAILED wf::add::simple" in out
    root = ET.parse(tmp_path / "j.xml").getroot()
    names = sorted(c.get("name") for c in root.iter("testcase"))
    assert len(names) == 7
    assert len(list(root.iter("failure"))) == 1 and len(list(root.iter("skipped"))) == 1
    code, out = pytest_run(tmp_path, "--stepsmith", "wf", "-k", "double or clock", "-q")
    assert code == 0 and "2 passed, 5 deselected" in out


def test_xdist_distributes_fixture_items(tmp_path, kit):
    kit.full_workflow(tmp_path / "wf")
    code, out = pytest_run(tmp_path, "--stepsmith", "wf", "-n", "2", "-q")
    assert code == 0, out
    assert "6 passed, 1 recorded" in out


def test_harmless_without_the_option(tmp_path, kit):
    kit.full_workflow(tmp_path / "wf")
    (tmp_path / "test_x.py").write_text("def test_x():\n    pass\n")
    code, out = pytest_run(tmp_path, "--co", "-q")
    assert code == 0 and "test_x.py::test_x" in out and "::add::" not in out
    # nothing of stepsmith's heavy machinery is imported by merely loading the plugin
    probe = ("import sys, pytest\n"
             "pytest.main(['-q', '--co', '-p', 'no:cacheprovider', '-p', "
             "'stepsmith.runner.pytest_plugin', 'test_x.py'])\n"
             "heavy = [m for m in ('stepsmith.runner.fixtures', 'stepsmith.runner.sandbox', "
             "'stepsmith.runner.manifest', 'rich') if m in sys.modules]\n"
             "print('HEAVY', heavy)\n")
    p = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120, check=False,
                       env=dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1"))
    assert "HEAVY []" in p.stdout, p.stdout + p.stderr


def test_broken_workflow_items_fail_with_the_check_problems(tmp_path, kit):
    kit.write_workflow(tmp_path / "wf", files={"steps/calc.py": "import os\n" + kit.ADD_CODE},
                       fixtures={"add/ok": kit.add_case("1.00", None, "1.50")})
    code, out = pytest_run(tmp_path, "--stepsmith", "wf", "-q")
    assert code == 1
    # one item for the cause, as pytest reports one collection error
    assert "wf::(blocked by SS101 at wf/steps/calc.py:1:8)" in out and "1 failed" in out


def test_pytest_split_shards_fixture_items(tmp_path, kit):
    """`pytest --stepsmith` is split across machines by pytest-split, as any pytest suite:
    stored durations, then `--splits N --group K`; the groups are the whole suite once."""
    kit.full_workflow(tmp_path / "wf")

    def split(*args):
        env = dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
        p = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p",
                            "stepsmith.runner.pytest_plugin", "-p", "pytest_split.plugin",
                            "--stepsmith", "wf", *args], cwd=tmp_path, capture_output=True,
                           text=True, timeout=300, check=False, env=env)
        return p.returncode, p.stdout + p.stderr

    code, out = split("--store-durations", "-q")
    assert code == 0, out
    assert (tmp_path / ".test_durations").is_file()
    groups = []
    for k in (1, 2, 3):
        code, out = split("--splits", "3", "--group", str(k), "--splitting-algorithm",
                          "least_duration", "--co", "-q")
        assert code == 0, out
        groups.append([line for line in out.splitlines() if line.startswith("wf::")])
    everything = sorted(i for g in groups for i in g)
    assert len(everything) == len(set(everything)) == 7 and all(groups)
