"""Manifest discovery searches up from a file or folder as well as down."""

from pathlib import Path

from stepsmith.runner.workspace.discovery import Found, discover, nearest_manifests


def _wf(root: Path, name: str = "wf") -> Path:
    d = root / name
    (d / "steps").mkdir(parents=True)
    (d / "workflow.yaml").write_text("workflow: x\n")
    (d / "steps" / "a.py").write_text("def a():\n    return 1\n")
    return d


def test_down_from_a_folder(tmp_path):
    a, b = _wf(tmp_path, "a"), _wf(tmp_path, "b")
    assert discover([tmp_path]) == [Found(a / "workflow.yaml"), Found(b / "workflow.yaml")]


def test_up_from_a_step_file_and_from_steps_folder(tmp_path):
    d = _wf(tmp_path)
    step = d / "steps" / "a.py"
    assert nearest_manifests(step) == [d / "workflow.yaml"]
    assert discover([step]) == [Found(d / "workflow.yaml", step)]
    assert discover([d / "steps"]) == [Found(d / "workflow.yaml", d / "steps")]


def test_a_narrowed_path_and_the_whole_folder_give_the_whole_workflow(tmp_path):
    d = _wf(tmp_path)
    assert discover([d / "steps" / "a.py", d]) == [Found(d / "workflow.yaml")]


def test_never_past_a_repository_root(tmp_path):
    _wf(tmp_path)
    repo = tmp_path / "wf" / "inner"
    (repo / ".git").mkdir(parents=True)
    (repo / "x.py").write_text("")
    assert nearest_manifests(repo / "x.py") == []
    assert discover([repo / "x.py"]) == []


def test_a_folder_named_like_a_manifest_is_skipped(tmp_path):
    d = tmp_path / "wf"
    d.mkdir()
    (d / "workflow.yaml").mkdir()  # a folder named like a manifest is skipped
    assert nearest_manifests(d) == []
