"""The check cache tells an unchanged workflow by its files' stat (no file
read), and a stale answer is a hidden finding: every edit to a file a check reads (same size,
mtime set back), the settings and the stepsmith version must each give a fresh check."""

import os
import time

import pytest
from stepsmith.runner.app import check as check_command
from stepsmith.runner.app import check_cache
from stepsmith.runner.settings import Settings, activate

PAD = 120  # every file ends in a comment (or blanks) this long: an edit fits in its size


@pytest.fixture
def wf(tmp_path, kit, monkeypatch):
    kit.own_check_cache(tmp_path, monkeypatch)
    root = kit.write_workflow(tmp_path / "wf", fixtures={"add/x": kit.add_case("1.00", None,
                                                                                "1.50")})
    for rel, pad in (("steps/calc.py", "#"), ("workflow.yaml", "#"),
                     ("fixtures/add/x.json", " ")):
        p = root / rel
        p.write_text(p.read_text() + "\n" + pad * PAD + "\n")
    yield root
    activate(None)


@pytest.fixture
def old(monkeypatch):
    """The clock far past every file's last change: outside the racy window."""
    monkeypatch.setattr(check_cache, "_now", lambda: time.time() + 3600)


class Spy:
    def __init__(self, monkeypatch):
        self.checked = 0
        real = check_command.check_unit

        def counting(m, *rest):
            self.checked += 1
            return real(m, *rest)

        monkeypatch.setattr(check_command, "check_unit", counting)

    def codes(self, root):
        found = check_command.check([str(root)]).problems
        return sorted(p.code for probs in found.values() for p in probs)


def same_size_edit(path, old, new):
    """Replace `old` by `new`, eating into the trailing padding so the size stays the same,
    then set the modification time back: only the ctime (and the bytes) tell."""
    st = os.stat(path)
    text = path.read_text()
    assert old in text
    text = text.replace(old, new, 1)
    grow = len(text.encode()) - st.st_size
    assert 0 <= grow < PAD - 10
    pad_char = "#" if path.suffix in (".py", ".yaml") else " "
    text = text.replace(pad_char * PAD, pad_char * (PAD - grow), 1)
    path.write_text(text)
    assert os.stat(path).st_size == st.st_size
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def test_an_unchanged_workflow_is_answered_from_its_stat_alone(wf, old, monkeypatch):
    spy = Spy(monkeypatch)
    assert spy.codes(wf) == [] and spy.checked == 1

    def no_reading(*a, **k):
        raise AssertionError("an unchanged workflow's files were read")

    monkeypatch.setattr(check_cache, "_content_key", no_reading)
    assert spy.codes(wf) == [] and spy.checked == 1


def test_a_recent_change_is_keyed_by_content(wf):
    s = check_cache.slot((wf / "workflow.yaml").resolve(), False)
    assert s.racy and s.stat_key is None and s.content_key()


def test_a_touch_is_answered_by_content_then_by_stat_again(wf, old, monkeypatch):
    spy = Spy(monkeypatch)
    spy.codes(wf)
    (wf / "steps" / "calc.py").touch()
    assert spy.codes(wf) == [] and spy.checked == 1  # same bytes: the content key answers
    monkeypatch.setattr(check_cache, "_content_key", lambda s: pytest.fail("read again"))
    assert spy.codes(wf) == [] and spy.checked == 1  # and the new stat is remembered


@pytest.mark.parametrize("rel, old_text, new_text, code", [
    ("steps/calc.py", "import datetime\n", "import datetime\neval('1')\n", "SS"),
    ("workflow.yaml", "version: 1", "version: x", "SM"),
    ("fixtures/add/x.json", '"inputs"', '"inptus"', "SF"),
])
def test_a_same_size_edit_with_the_old_mtime_is_seen(wf, old, monkeypatch, rel, old_text,
                                                      new_text, code):
    spy = Spy(monkeypatch)
    assert spy.codes(wf) == []
    same_size_edit(wf / rel, old_text, new_text)
    found = spy.codes(wf)
    assert spy.checked == 2
    assert any(c.startswith(code) for c in found), found


def test_a_new_fixture_file_is_seen(wf, old, monkeypatch, kit):
    spy = Spy(monkeypatch)
    assert spy.codes(wf) == []
    kit.write_fixture(wf, "nope/x", kit.add_case("1.00", None, "1.50"))
    assert spy.checked == 1 and spy.codes(wf) and spy.checked == 2


def test_other_settings_check_again(wf, old, monkeypatch, tmp_path):
    spy = Spy(monkeypatch)
    spy.codes(wf)
    spy.codes(wf)
    assert spy.checked == 1
    activate(Settings(source=tmp_path / "stepsmith.toml",
                      limits={"cpu_seconds": 1, "wall_seconds": 5.0, "memory_mb": 256,
                              "output_kb": 256}))
    spy.codes(wf)
    assert spy.checked == 2


def test_another_stepsmith_version_checks_again(wf, old, monkeypatch):
    import stepsmith

    spy = Spy(monkeypatch)
    spy.codes(wf)
    monkeypatch.setattr(stepsmith, "__version__", stepsmith.__version__ + ".post1")
    monkeypatch.setattr(check_cache, "_CODE", None)
    spy.codes(wf)
    assert spy.checked == 2


def test_an_answer_is_not_kept_when_a_file_changed_during_the_check(wf, old, monkeypatch):
    real = check_command.check_unit
    calls = []

    def editing(m, *rest):
        calls.append(m)
        out = real(m, *rest)
        if len(calls) == 1:  # the answer is for the file as it was: not to be kept
            p = wf / "steps" / "calc.py"
            p.write_text(p.read_text().replace("import datetime\n", "eval('1')\n"))
        return out

    monkeypatch.setattr(check_command, "check_unit", editing)
    check_command.check([str(wf)])
    found = check_command.check([str(wf)]).problems
    assert len(calls) == 2
    assert any(p.code.startswith("SS") for probs in found.values() for p in probs)


def test_a_symlinked_step_file_is_never_cached(wf, old):
    target = wf / "steps" / "real.py"
    target.write_text("x = 1\n")
    (wf / "steps" / "link.py").symlink_to(target)
    assert check_cache.slot((wf / "workflow.yaml").resolve(), False) is None
