"""When a step file alone changed, `check` takes the manifest's and the
fixtures' part of the answer from the cache (app/check_units.py) and checks the step files
again without validating the manifest's model (no pydantic import). The answer must be the
one a fresh check gives, after every kind of step-file edit: compared with `--no-cache`."""

import json

import pytest
from stepsmith.runner.app import check as check_command
from stepsmith.runner.app import check_cache
from stepsmith.runner.settings import activate

STALE = {"inputs": {"total": {"sum": "9.99"}}, "evaluation_time": "2026-12-01T07:00:00+00:00",
         "expected": {"output": 19.98, "effects": []},
         "recorded_from": {"case": "day1", "upstream": {"add": {"fixture": "x",
                                                                "request_sha256": "0" * 64}}}}

EDITS = [  # (what, rel, new text or None to delete); applied in turn, each on the last
    ("a syntax error", "steps/calc.py", "def add(a, b:\n"),
    ("the function renamed", "steps/calc.py",
     "def add2(a, b):\n    return a\n\n\ndef double(total):\n    return total\n"),
    ("a parameter renamed", "steps/calc.py",
     "def add(a, c):\n    return a\n\n\ndef double(total):\n    return total\n"),
    ("a forbidden import", "steps/calc.py",
     "import os\n\n\ndef add(a, b):\n    return a\n\n\ndef double(total):\n    return total\n"),
    ("the file deleted", "steps/calc.py", None),
    ("the file back", "steps/calc.py",
     "def add(a, b):\n    return a\n\n\ndef double(total):\n    return total\n"),
    ("a helper file no step names", "steps/extra.py", "x = eval('1')\n"),
    ("bytes that are not UTF-8", "steps/calc.py", b"def add(a, b):\n    return '\xff'\n"),
]


@pytest.fixture
def tree(tmp_path, kit, monkeypatch):
    kit.own_check_cache(tmp_path, monkeypatch)
    kit.write_workflow(tmp_path / "good", fixtures={
        "add/x": kit.add_case("1.00", None, "1.50"),
        "add/typo": {**kit.add_case("1.00", None, "1.50"), "expectd": 1},  # SF003
        "add/broken": '{"inputs": {"a": ',  # SF002
        "double/wired": STALE})  # SF001: add/x's output is not the input it holds
    bad = kit.demo_manifest(owner="nobody")  # SM003, the model says no
    bad["steps"][1]["inputs"] = {"total": "steps.nope.output"}  # a cross reference
    kit.write_workflow(tmp_path / "bad", manifest=bad)
    yield tmp_path
    activate(None)


def answer(kit, capsys, *argv):
    code, out, _ = kit.cli(capsys, "check", "--format", "json", *argv, ".")
    return code, json.loads(out)


def same(cached, fresh, what: str) -> None:
    import difflib

    a, b = (json.dumps(x, indent=1, sort_keys=True).splitlines() for x in (cached, fresh))
    assert a == b, f"{what}:\n" + "\n".join(difflib.unified_diff(a, b, "cached", "fresh", n=2))


def all_codes(doc) -> set:
    return {p.get("code", "SF001" if "stale" in json.dumps(p) else "?")
            for p in doc["problems"] + doc["warnings"]}


def spy(monkeypatch) -> list[bool]:
    """Whether each workflow check took the cached facts (check_units.py)."""
    real, partial = check_command.check_unit, []

    def spying(m, facts=None):
        partial.append(facts is not None)
        return real(m, facts)

    monkeypatch.setattr(check_command, "check_unit", spying)
    return partial


def test_a_step_file_edit_is_answered_as_a_fresh_check_would(tree, kit, capsys, monkeypatch):
    partial = spy(monkeypatch)
    first = answer(kit, capsys)
    assert first == answer(kit, capsys, "--no-cache")
    codes = all_codes(first[1])
    assert {"SF001", "SF002", "SF003", "SM003"} <= codes, codes  # the cached part holds some
    for what, rel, text in EDITS:
        for wf in ("good", "bad"):
            p = tree / wf / rel
            if text is None:
                p.unlink()
            else:
                p.parent.mkdir(exist_ok=True)
                p.write_bytes(text if isinstance(text, bytes) else text.encode())
        partial.clear()
        cached = answer(kit, capsys)
        assert partial == [True, True], what  # both workflows re-checked, from their facts
        same(cached, answer(kit, capsys, "--no-cache"), what)


def test_a_manifest_or_fixture_edit_is_checked_whole(tree, kit, capsys, monkeypatch):
    partial = spy(monkeypatch)
    answer(kit, capsys)
    for rel, old, new in (("good/workflow.yaml", "Double the sum.", "Double it."),
                          ("good/fixtures/add/x.json", '"1.50"', '"9.99"')):
        p = tree / rel
        p.write_text(p.read_text().replace(old, new))
        partial.clear()
        cached = answer(kit, capsys)
        assert partial == [False], rel
        same(cached, answer(kit, capsys, "--no-cache"), rel)
    # the wired fixture now holds add/x's output: no longer stale
    assert "SF001" not in all_codes(cached[1])


def test_stale_fixtures_first_seen_when_the_step_file_is_fixed(tree, kit, capsys):
    """Cached while a step file was broken, the workflow's stale fixtures were never looked
    at (its fixtures cannot load): fixing the step file must still bring SF001 back."""
    calc = tree / "good" / "steps" / "calc.py"
    good = calc.read_text()
    calc.write_text("def add(a, b:\n")
    broken = answer(kit, capsys)
    assert "SF001" not in all_codes(broken[1])
    same(broken, answer(kit, capsys, "--no-cache"), "broken")
    calc.write_text(good)
    fixed = answer(kit, capsys)
    assert "SF001" in all_codes(fixed[1])
    same(fixed, answer(kit, capsys, "--no-cache"), "fixed")


@pytest.mark.parametrize("damage", ["manifest", "fixtures", "stale", "model"])
def test_a_damaged_cache_entry_is_checked_again(tree, kit, capsys, damage):
    """A cache entry that does not read back (a damaged file, another version's shape) is
    never an internal error: that workflow is checked again, and the answer is a fresh one."""
    fresh = answer(kit, capsys, "--no-cache")
    answer(kit, capsys)
    bad = {"manifest": [{"nope": 1}], "fixtures": [["x", [{"code": 1}]]],
           "stale": [{"who": "?"}], "model": "yes"}[damage]
    entries = list((tree / "cache" / "stepsmith" / "check").glob("*.json"))
    assert entries
    for p in entries:  # under this user's key (a forged one is test_check_cache.py's): the
        doc = check_cache._read(p.stem)  # shape alone is wrong, as another version's would be
        assert doc is not None, p
        if damage in doc:
            doc[damage] = bad
        if "problems" in doc:  # the whole answers too
            doc["problems"] = [["x", [{"nope": 1}]]]
        check_cache._write(p.stem, doc)
    calc = tree / "good" / "steps" / "calc.py"
    calc.write_text(calc.read_text() + "\n# edited\n")
    same(answer(kit, capsys), answer(kit, capsys, "--no-cache"), damage)
    calc.write_text(calc.read_text().replace("\n# edited\n", ""))
    same(answer(kit, capsys), fresh, damage)
