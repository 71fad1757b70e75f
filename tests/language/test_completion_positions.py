"""Completion at every word boundary of the bundled examples (manifests and step files, also cut
short mid-line as while typing): never an exception, and every item replaces a range on the
cursor's line that ends at the cursor, with the text typed there as a prefix of what it
inserts or of nothing at all (the client filters by the word)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from stepsmith.runner.language.completion import complete
from stepsmith.runner.lines import split_lines, strip_eol
from stepsmith.runner.workspace.diagnostics import check_manifest
from stepsmith.runner.workspace.index import WorkspaceIndex, norm
from stepsmith.runner.workspace.snapshot import Buffer, WorkspaceSnapshot

pytestmark = pytest.mark.slow  # every word boundary of every example file

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _snapshot(root: Path, path: str, text: str) -> WorkspaceSnapshot:
    m = norm(root / "workflow.yaml")
    ix = WorkspaceIndex().with_manifests([m])
    ix, _ = ix.with_check(m, check_manifest(WorkspaceSnapshot.of(ix, {}), m), None)
    return WorkspaceSnapshot.of(ix, {path: Buffer(text, 1, tuple(split_lines(text)))})


def _boundaries(line: str) -> list[int]:
    """Every column after a character that is not a letter or digit, and the line's end (each
    word is entered once, at its start; the whole line is seen as typed and as written)."""
    return [c for c in range(len(line) + 1)
            if c in (0, len(line)) or not line[c - 1].isalnum()]


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.iterdir()
                                           if (p / "workflow.yaml").exists()))
def test_every_position_of_the_examples(tmp_path, example):
    root = tmp_path / example
    shutil.copytree(EXAMPLES / example, root, ignore=shutil.ignore_patterns(".stepsmith"))
    files = [root / "workflow.yaml", *sorted((root / "steps").glob("*.py"))[:2]]
    count = 0
    for f in files:
        text = f.read_text()
        lines = split_lines(text)
        for n, raw in enumerate(lines, 1):
            line = strip_eol(raw)
            for col in _boundaries(line):
                # as typed so far: the line cut at the cursor (often not valid YAML/Python)
                cut = "".join(lines[:n - 1]) + line[:col] + "\n" + "".join(lines[n:])
                for body in (text, cut) if col == len(line) else (cut,):
                    ws = _snapshot(root, norm(f), body)
                    for item in complete(ws, norm(f), n, col):
                        r = item.range
                        assert (r.line, r.end_line, r.end_column) == (n, n, col), (f, n, col)
                        assert 0 <= r.column <= col
                        assert item.filter_text and item.new_text
                        count += 1
    assert count > 500  # the examples give completions in many places
