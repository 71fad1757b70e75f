"""runner/safeio.py on its own (issue 10, finding 2): what every reader and writer of a
workflow folder relies on."""

import os

import pytest
from stepsmith.runner import safeio


def test_regular_file_inside_is_read(tmp_path):
    (tmp_path / "a.txt").write_text("hello")
    os.symlink("a.txt", tmp_path / "link.txt")  # a symlink that stays inside is followed
    assert safeio.read_text(tmp_path / "a.txt", root=tmp_path, cap=5) == "hello"
    assert safeio.read_text(tmp_path / "link.txt", root=tmp_path, cap=5) == "hello"


def test_what_is_opened_is_the_path_that_was_checked(tmp_path, monkeypatch):
    """A file swapped for a symlink out of the folder just after the check is never followed:
    the read opens the real path it checked, without following a link there."""
    (tmp_path / "outside.txt").write_text("root-only secret")
    wf = tmp_path / "wf"
    wf.mkdir()
    (wf / "fixture.json").write_text("{}")
    real_check = safeio._real_inside

    def check_then_swap(path, root):
        real = real_check(path, root)
        os.unlink(wf / "fixture.json")  # a local writer wins the race
        os.symlink(tmp_path / "outside.txt", wf / "fixture.json")
        return real

    monkeypatch.setattr(safeio, "_real_inside", check_then_swap)
    with pytest.raises(OSError):
        got = safeio.read_bytes(wf / "fixture.json", root=wf, cap=100)
        assert b"secret" not in got


def test_cap_is_hard_even_where_st_size_says_zero(tmp_path):
    (tmp_path / "big").write_bytes(b"x" * 11)
    with pytest.raises(safeio.TooLarge):
        safeio.read_bytes(tmp_path / "big", root=tmp_path, cap=10)
    # a regular file whose st_size is 0 and whose content is not: only the read loop's own
    # count can stop it (the mutation table found this test never tried one)
    status = "/proc/self/status"
    assert os.stat(status).st_size == 0 and len(open(status, "rb").read()) > 10
    with pytest.raises(safeio.TooLarge):
        safeio.read_bytes(status, root="/proc/self", cap=10)
    assert safeio.read_bytes(status, root="/proc/self", cap=1 << 20).startswith(b"Name:")
    os.symlink("/dev/zero", tmp_path / "zero")
    with pytest.raises(safeio.UnsafePath):  # outside the folder, and not a regular file
        safeio.read_bytes(tmp_path / "zero", root=tmp_path, cap=10)


def test_devices_fifos_and_outside_targets_refused(tmp_path):
    os.mkfifo(tmp_path / "fifo")  # would block a plain open(); refused without hanging
    with pytest.raises(safeio.UnsafePath, match="regular"):
        safeio.read_bytes(tmp_path / "fifo", root=tmp_path, cap=10)
    outside = tmp_path.parent / (tmp_path.name + "-outside.txt")
    outside.write_text("secret")
    os.symlink(outside, tmp_path / "escape")
    with pytest.raises(safeio.UnsafePath, match="outside"):
        safeio.read_bytes(tmp_path / "escape", root=tmp_path, cap=100)
    with pytest.raises(safeio.UnsafePath, match="is a symlink"):
        safeio.read_bytes(tmp_path / "escape", root=tmp_path, cap=100, no_symlink=True)
    with pytest.raises(FileNotFoundError):
        safeio.read_bytes(tmp_path / "missing", root=tmp_path, cap=100)


def test_safe_dir_refuses_symlinked_components(tmp_path):
    # the messages are matched from ": is a symlink": this test's own folder name holds
    # "symlink", so a bare match would pass on any refusal naming the path
    (tmp_path / "elsewhere").mkdir()
    wf = tmp_path / "wf"
    wf.mkdir()
    assert safeio.safe_dir(wf, "fixtures/add") == wf / "fixtures" / "add"
    os.symlink(tmp_path / "elsewhere", wf / "fixtures" / "pay")
    with pytest.raises(safeio.UnsafePath, match="is a symlink"):
        safeio.safe_dir(wf, "fixtures/pay")
    with pytest.raises(safeio.UnsafePath):
        safeio.safe_dir(wf, "../x")
    assert (wf / ".stepsmith").exists() is False
    safeio.safe_dir(wf, ".stepsmith")
    assert (wf / ".stepsmith").stat().st_mode & 0o777 == 0o700
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_workspace_reader_uses_the_workflow_folder(tmp_path):
    wf = tmp_path / "wf"
    (wf / "steps").mkdir(parents=True)
    (wf / "workflow.yaml").write_text("workflow: x\n")
    (wf / "lib.py").write_text("def f():\n    return 1\n")
    os.symlink("../lib.py", wf / "steps" / "s.py")  # inside the workflow folder: fine
    assert safeio.read_workspace_text(wf / "steps" / "s.py").startswith("def f")
    os.symlink("/etc/hostname", wf / "steps" / "h.py")
    assert safeio.read_workspace_text(wf / "steps" / "h.py") is None


def test_write_atomic_refuses_symlinks_on_the_way_and_at_the_target(tmp_path):
    root, elsewhere = tmp_path / "wf", tmp_path / "elsewhere"
    root.mkdir()
    elsewhere.mkdir()
    os.symlink(elsewhere, root / "fixtures")
    with pytest.raises(safeio.UnsafePath, match="is a symlink"):
        safeio.write_atomic(root / "fixtures" / "add" / "x.json", "{}", root=root)
    (root / "real").mkdir()
    os.symlink(elsewhere / "target", root / "real" / "x.json")
    with pytest.raises(safeio.UnsafePath, match="is a symlink"):
        safeio.write_atomic(root / "real" / "x.json", b"{}", root=root)
    # `contained` (the rename's and pending's guard) says the same of the target
    with pytest.raises(safeio.UnsafePath, match="x.json: is a symlink"):
        safeio.contained(root, root / "real" / "x.json")
    with pytest.raises(safeio.UnsafePath, match="not inside"):
        safeio.write_atomic(tmp_path / "outside.json", "{}", root=root)
    assert list(elsewhere.iterdir()) == []
    assert [p.name for p in (root / "real").iterdir()] == ["x.json"]  # no temporary file left


def test_write_atomic_creates_real_folders_and_replaces_whole(tmp_path):
    root = tmp_path / "wf"
    target = root / ".stepsmith" / "pending" / "add" / "x.json"
    safeio.write_atomic(target, "one", root=root)
    safeio.write_atomic(target, "two", root=root)
    assert target.read_text() == "two"
    assert (root / ".stepsmith").stat().st_mode & 0o777 == 0o700
    with pytest.raises(FileExistsError):
        safeio.write_atomic(target, "three", root=root, overwrite=False)
    assert target.read_text() == "two"
    assert sorted(p.name for p in target.parent.iterdir()) == ["x.json"]


def test_read_if_exists_and_unlink_stay_inside(tmp_path):
    root = tmp_path / "wf"
    (root / "d").mkdir(parents=True)
    assert safeio.read_if_exists(root / "d" / "absent.json", root=root, cap=10) is None
    (root / "d" / "f.json").write_text("12345678901")
    with pytest.raises(safeio.TooLarge):
        safeio.read_if_exists(root / "d" / "f.json", root=root, cap=10)
    host = tmp_path / "host"
    host.write_text("secret")
    os.symlink(host, root / "d" / "link.json")
    with pytest.raises(safeio.UnsafePath):
        safeio.read_if_exists(root / "d" / "link.json", root=root, cap=10)
    with pytest.raises(safeio.UnsafePath):
        safeio.unlink(root, root / "d" / "link.json")
    assert host.read_text() == "secret"
    assert safeio.unlink(root, root / "d" / "f.json") is True
    assert safeio.unlink(root, root / "d" / "f.json") is False
