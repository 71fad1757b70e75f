"""Finding the interpreter a `python:` pin names, as the user has it (runner/pythons): the
settings' mapping and $STEPSMITH_PYTHONS, the running interpreter, `python3.X` on PATH, uv's
and pyenv's folders; probed, cached by path and mtime; a clear stop when there is none."""

from __future__ import annotations

import os
import shutil
import stat
import sys

import pytest
from stepsmith.runner import pythons
from stepsmith.runner.pythons import PythonNotFound, find, probe
from stepsmith.runner.pythons.discover import Mapped
from stepsmith.runner.settings import SettingsError, load_settings


def mapped(version: str, path: str, trusted: bool = True) -> list[Mapped]:
    return [Mapped(version, path, "test mapping", trusted)]


def real(path) -> str:
    return os.path.realpath(path)


def test_a_minor_pin_takes_any_release_a_full_pin_only_that_one(isolated, py313):
    got = find("3.13", mapped("3.13", py313))
    assert got.version[:2] == (3, 13) and got.exe == real(py313) and not got.running
    exact = f"3.13.{got.version[2]}"
    assert find(exact, mapped("3.13", py313)) == got
    other = f"3.13.{got.version[2] + 1}"
    with pytest.raises(PythonNotFound) as exc:
        find(other, mapped("3.13", py313))
    assert f"which is Python {got.release}" in str(exc.value) and other in str(exc.value)


def test_the_environment_variable_maps_a_version_for_ci(isolated, py313, monkeypatch):
    monkeypatch.setenv("STEPSMITH_PYTHONS", f"3.12=/nonexistent/python3.12{os.pathsep}3.13={py313}")
    assert pythons.resolve("3.13").exe == real(py313)


def test_the_settings_mapping_comes_before_the_environment(isolated, py313, monkeypatch,
                                                          tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text(f'[tool.stepsmith]\npythons = {{"3.13" = "{py313}"}}\n')
    monkeypatch.setenv("STEPSMITH_PYTHONS", f"3.13={sys.executable}")  # a 3.11: not taken
    assert pythons.resolve("3.13", project).exe == real(py313)
    # without the settings the variable answers, and a mapped path of another version is an
    # error naming it, never a reason to look elsewhere
    with pytest.raises(PythonNotFound) as exc:
        pythons.resolve("3.13", tmp_path)
    assert f"which is Python {sys.version.split()[0]}" in str(exc.value)


def test_the_running_interpreter_answers_its_own_version_without_a_process(isolated,
                                                                           monkeypatch):
    monkeypatch.setattr(probe, "_ask", lambda exe: pytest.fail(f"probed {exe}"))
    got = find(f"{sys.version_info[0]}.{sys.version_info[1]}")
    assert got.running and got.exe == real(getattr(sys, "_base_executable", sys.executable))


def test_python3x_on_path(isolated, py313, monkeypatch, tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3.13").symlink_to(py313)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    got = find("3.13")
    assert got.exe == real(py313)  # the real binary, never the link


@pytest.mark.parametrize("manager", ["uv", "pyenv"])
def test_uv_and_pyenv_folders(isolated, py313, monkeypatch, tmp_path, manager):
    version = find("3.13", mapped("3.13", py313)).release
    if manager == "uv":
        root = tmp_path / "uv-pythons"
        folder = root / f"cpython-{version}-linux-x86_64-gnu" / "bin"
        monkeypatch.setenv("UV_PYTHON_INSTALL_DIR", str(root))
    else:
        root = tmp_path / "pyenv"
        folder = root / "versions" / version / "bin"
        monkeypatch.setenv("PYENV_ROOT", str(root))
    folder.mkdir(parents=True)
    (folder / "python3.13").symlink_to(py313)
    assert find("3.13").exe == real(py313)
    assert find(version).exe == real(py313)


def test_not_installed_is_a_clear_stop_saying_where_it_looked_and_how_to_get_it(isolated):
    with pytest.raises(PythonNotFound) as exc:
        find("3.12")
    text = str(exc.value)
    for part in ("Python 3.12", "is not installed here", "PATH (python3.12)", "uv (",
                 "pyenv (", f"the running interpreter (Python {sys.version.split()[0]})",
                 "uv python install 3.12", "apt-get install python3.12", "pyenv install 3.12",
                 '[tool.stepsmith] pythons = {"3.12" = ', "$STEPSMITH_PYTHONS"):
        assert part in text, (part, text)


def test_a_probe_is_cached_by_path_and_mtime(isolated, py313, monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    copy = tmp_path / "bin" / "python3.13"  # a copy: its mtime is ours to change
    copy.parent.mkdir()
    shutil.copy2(py313, copy)
    asked = []
    real_ask = probe._ask
    monkeypatch.setattr(probe, "_ask", lambda exe: asked.append(exe) or real_ask(exe))
    first = probe.probe(str(copy))
    assert first.version[:2] == (3, 13) and asked == [str(copy)]
    probe.forget()  # as a new process: the answer comes from the cache folder
    assert probe.probe(str(copy)) == first and len(asked) == 1
    st = copy.stat()
    os.utime(copy, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    probe.forget()
    assert probe.probe(str(copy)) == first and len(asked) == 2  # changed: asked again


def test_a_wrapper_is_asked_every_time_and_answers_with_its_real_binary(isolated, py313,
                                                                         monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    shim = tmp_path / "shim" / "python3.13"
    shim.parent.mkdir()
    shim.write_text(f'#!/bin/sh\nexec "{py313}" "$@"\n')
    shim.chmod(0o755)
    asked = []
    real_ask = probe._ask
    monkeypatch.setattr(probe, "_ask", lambda exe: asked.append(exe) or real_ask(exe))
    assert probe.probe(str(shim)).exe == real(py313)
    assert probe.probe(str(shim)).exe == real(py313)  # the same process
    probe.forget()
    assert probe.probe(str(shim)).exe == real(py313)  # a new one (the cache folder)
    assert len(asked) == 3  # what a shim runs can change without the shim changing


def test_not_cpython_is_refused(isolated, tmp_path):
    fake = tmp_path / "python3.13"
    fake.write_text('#!/bin/sh\necho \'{"implementation": "pypy", "version": [3, 13, 0]}\'\n')
    fake.chmod(0o755)
    with pytest.raises(PythonNotFound) as exc:
        find("3.13", mapped("3.13", str(fake)))
    assert "not a Python interpreter" in str(exc.value) or "not CPython" in str(exc.value)


# ------------------------------------------------------------------ a cloned folder's settings


def test_settings_may_not_name_an_interpreter_inside_the_project(tmp_path):
    project = tmp_path / "clone"
    (project / ".git").mkdir(parents=True)
    (project / "sub").mkdir()
    (project / "sub" / "pyproject.toml").write_text(
        f'[tool.stepsmith]\npythons = {{"3.13" = "{project}/tools/python3.13"}}\n')
    with pytest.raises(SettingsError) as exc:
        load_settings(project / "sub")
    assert "inside the project folder" in str(exc.value)
    (project / "sub" / "pyproject.toml").write_text(
        '[tool.stepsmith]\npythons = {"3.13" = "bin/python3.13"}\n')
    with pytest.raises(SettingsError, match="absolute path"):
        load_settings(project / "sub")


def test_a_program_others_can_change_is_never_run(isolated, tmp_path):
    marker = tmp_path / "ran"
    prog = tmp_path / "elsewhere" / "python3.13"
    prog.parent.mkdir()
    prog.write_text(f"#!/bin/sh\ntouch {marker}\n")
    prog.chmod(0o777)
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text(f'[tool.stepsmith]\npythons = {{"3.13" = "{prog}"}}\n')
    with pytest.raises(PythonNotFound) as exc:
        pythons.resolve("3.13", project)
    assert "writable by other users" in str(exc.value) and not marker.exists()
    prog.chmod(0o755)
    prog.parent.chmod(0o777 | stat.S_ISVTX)
    pythons.forget()
    with pytest.raises(PythonNotFound) as exc:
        pythons.resolve("3.13", project)
    assert "writable by other users" in str(exc.value) and not marker.exists()


def test_an_untrusted_workspace_ignores_its_own_settings_mapping(isolated, py313, tmp_path,
                                                                monkeypatch):
    """The language server of an untrusted workspace (`trusted: false`) looks at PATH, uv,
    pyenv and $STEPSMITH_PYTHONS only: the folder's settings name no program to run."""
    from stepsmith.runner import settings

    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text(f'[tool.stepsmith]\npythons = {{"3.13" = "{py313}"}}\n')
    assert pythons.resolve("3.13", project).exe == real(py313)
    settings.trust_project_pythons(False)
    try:
        pythons.forget()
        with pytest.raises(PythonNotFound):
            pythons.resolve("3.13", project)
    finally:
        settings.trust_project_pythons(True)


def test_show_settings_names_the_mapping(isolated, py313, tmp_path, monkeypatch, capsys, kit):
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.stepsmith]\npythons = {{"3.13" = "{py313}"}}\n')
    monkeypatch.chdir(tmp_path)
    code, out, _ = kit.cli(capsys, "--show-settings")
    line = next(x for x in out.splitlines() if x.startswith("pythons = "))
    assert code == 0 and f'{{"3.13": "{py313}"}}' in line and "pyproject.toml" in line


def test_a_pin_older_than_the_harness_supports_is_refused_as_such(isolated):
    with pytest.raises(PythonNotFound) as exc:
        find("3.10")
    assert "older than stepsmith can check and run steps on: pin 3.11 or newer" in str(exc.value)
