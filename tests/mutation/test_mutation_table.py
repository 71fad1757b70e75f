"""The mutation table (tests/mutation/mutations.toml, run by scripts/mutate) cannot rot: every
snippet still occurs exactly once in its file, every replacement changes it, every selection
names test files that exist, and the ids are unique. Fast: no mutation is applied here."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
MUTATE = runpy.run_path(str(REPO / "scripts" / "mutate"))
ROWS = MUTATE["load_table"]()


def test_the_table_is_large_and_covers_every_security_critical_module():
    assert len(ROWS) >= 40
    files = {r["file"] for r in ROWS}
    for part in ("runner/validator/policy.py", "runner/validator/checks/", "runner/sandbox/redact.py",
                 "runner/sandbox/seccomp.py", "runner/sandbox/egress.py", "runner/store/mac.py",
                 "runner/store/db.py", "runner/safeio.py", "runner/sandbox/__init__.py"):
        assert any(f.startswith(part) for f in files), part


def test_every_snippet_occurs_exactly_once_and_every_replacement_changes_it():
    assert MUTATE["check_snippets"](ROWS) == []


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_every_selection_names_existing_tests(row):
    assert row["tests"], row["id"]
    for sel in row["tests"]:
        path = sel.split("::", 1)[0]
        assert (REPO / path).is_file() and path.startswith("tests/"), (row["id"], sel)
    assert set(row) <= {"id", "file", "original", "replacement", "tests", "equivalent",
                        "timeout"}, row["id"]
    if "equivalent" in row:
        assert len(row["equivalent"]) > 20, "say why the mutant is equivalent"


def test_the_snippet_check_sees_a_stale_row(tmp_path):
    row = dict(ROWS[0], original=ROWS[0]["original"] + "  # not in the file")
    assert MUTATE["check_snippets"]([row]) == [
        f"{row['id']}: the original snippet occurs 0 times in {row['file']}"]
    twice = dict(ROWS[0], replacement=ROWS[0]["original"])
    assert MUTATE["check_snippets"]([twice]) == [f"{row['id']}: the replacement changes nothing"]
