"""A proper package; the sdist too. `python -m build` makes the sdist and
then the wheel FROM that sdist (the path a source install takes); each is `pip install`ed into a
fresh venv outside the checkout and used from another folder as a pip user would: `stepsmith
init`, `check`, `test`, `--version`, `import stepsmith`. Real build, real pip, real venv, real
sandbox. scripts/test runs this module, so .ci/run does."""

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.usefixtures("sandbox")


def sh(*argv, cwd=None, timeout=600):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    p = subprocess.run([str(a) for a in argv], cwd=cwd, capture_output=True, text=True,
                       timeout=timeout, env=env, check=False)
    assert p.returncode == 0, f"{argv}: exit {p.returncode}\n{p.stdout}\n{p.stderr}"
    return p.stdout


def _tracked_files() -> list[str]:
    """What a clean clone holds (so a file the build needs but git does not track fails here
    as it would for a user), less the parts no package build reads."""
    out = subprocess.run(["git", "-C", str(REPO), "ls-files", "--cached", "--others",
                          "--exclude-standard"], capture_output=True, text=True, check=True)
    skip = ("vscode-extension/", "tests/", "bench/", "examples/", ".ci/")
    return [n for n in out.stdout.splitlines() if n and not n.startswith(skip)
            and (REPO / n).is_file()]


@pytest.fixture(scope="module")
def dists(tmp_path_factory):
    src = tmp_path_factory.mktemp("src")
    for name in _tracked_files():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / name, src / name)
    dist = tmp_path_factory.mktemp("dist")
    sh(sys.executable, "-m", "build", "--outdir", dist, src, timeout=900)
    (whl,) = dist.glob("stepsmith-*.whl")
    (sdist,) = dist.glob("stepsmith-*.tar.gz")
    return {"wheel": whl, "sdist": sdist}


@pytest.fixture(scope="module")
def wheel(dists):
    return dists["wheel"]


def test_the_sdist_holds_what_a_build_needs(dists):
    import tarfile

    with tarfile.open(dists["sdist"]) as t:
        names = {n.partition("/")[2] for n in t.getnames()}
    for need in ("setup.py", "pyproject.toml", "LICENSE", "docs/pypi.md",
                 "schemas/workflow.schema.json", "runner/harness/inside.py",
                 "server/__init__.py", "stepsmith/py.typed", "docs/guide.md",
                 "docs/rules/SF002.md"):
        assert need in names, need


def test_the_wheel_holds_a_proper_package(wheel):
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        meta = z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
        schema = json.loads(z.read("stepsmith/schemas/workflow.schema.json"))
    for need in ("stepsmith/__init__.py", "stepsmith/py.typed", "stepsmith/runner/cli/__init__.py",
                 "stepsmith/server/__init__.py", "stepsmith/runner/harness/inside.py",
                 "stepsmith/docs/guide.md", "stepsmith/docs/rules/SS201.md",
                 "stepsmith/docs/rules/index.md"):
        assert need in names, need
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "License-Expression: MIT" in meta
    assert "pip install stepsmith" in meta and "scripts/demo" not in meta
    assert "Version: 0.1.0" in meta
    from stepsmith.runner.schema import schema_text

    assert schema == json.loads(schema_text())
    assert not any(n.startswith(("tests/", "examples/")) for n in names)


@pytest.mark.parametrize("kind", ["wheel", "sdist"])
def test_pip_install_into_a_fresh_venv_then_use_it_elsewhere(dists, kind, tmp_path):
    venv = tmp_path / "venv"
    sh(sys.executable, "-m", "venv", venv)
    py, exe = venv / "bin" / "python", venv / "bin" / "stepsmith"
    sh(py, "-m", "pip", "install", "-q", "--disable-pip-version-check", dists[kind],
       timeout=900)
    work = tmp_path / "elsewhere"
    work.mkdir()
    out = sh(exe, "init", "ledger", "--name", "ledger-recon", cwd=work)
    assert "created workflow 'ledger-recon'" in out
    assert "All checks passed!" in sh(exe, "check", "ledger", cwd=work)
    assert "1 passed" in sh(exe, "test", "ledger", cwd=work)
    assert sh(py, "-c", "import stepsmith; print(stepsmith.__version__)", cwd=work).strip() \
        == "0.1.0"
    installed = sh(py, "-c", "import stepsmith; print(stepsmith.schema_path())", cwd=work)
    assert str(venv) in installed  # the packaged schema, not the clone's
    guide = sh(exe, "guide", cwd=work)  # the docs travel with the package (issue 20)
    assert "## 3. Change the code, review the changed outputs" in guide
    assert str(venv) in sh(exe, "guide", "--path", cwd=work)
    version = sh(exe, "--version", cwd=work)
    assert version.startswith("stepsmith 0.1.0 (harness ") and "Python 3." in version
    # pytest is not a dependency: `-k` (pytest's expression language) works without it
    assert subprocess.run([py, "-c", "import pytest"], capture_output=True,
                          check=False).returncode != 0
    assert "1 passed" in sh(exe, "test", "ledger", "-k", "ledger", cwd=work)
    # the extra brings pytest, and the plugin is registered by the wheel's entry point
    sh(py, "-m", "pip", "install", "-q", "--disable-pip-version-check",
       f"{dists[kind]}[pytest]", timeout=900)
    out = sh(py, "-m", "pytest", "-p", "no:cacheprovider", "--stepsmith", "ledger", "-q",
             cwd=work)
    assert "1 passed" in out
