"""Cursor-marker tests of the pure services (as actions/languageservices does): a document
with a `|` at the cursor -> the service's answer, on a WorkspaceSnapshot, without a server."""

from __future__ import annotations

from pathlib import Path

from cursor_kit import cursor
from stepsmith.runner.fixes import apply_edits
from stepsmith.runner.language.actions import code_actions
from stepsmith.runner.language.manifest_services import manifest_hover
from stepsmith.runner.language.navigation import definition, references
from stepsmith.runner.lines import split_lines
from stepsmith.runner.validator import validate
from stepsmith.runner.workspace.diagnostics import check_manifest
from stepsmith.runner.workspace.index import WorkspaceIndex, norm
from stepsmith.runner.workspace.snapshot import Buffer, WorkspaceSnapshot

MANIFEST = """workflow: demo
version: 1
python: "3.11"
trigger: {manual: {}}
steps:
  - id: read
    explanation: Read the invoices.
    code: steps/read.py:read
"""
READ_PY = "import json\n\n\ndef read():\n    return json.dumps([])\n"


def workspace(tmp_path: Path, open_files: dict[str, str]) -> WorkspaceSnapshot:
    (tmp_path / "steps").mkdir(exist_ok=True)
    (tmp_path / "workflow.yaml").write_text(MANIFEST)
    (tmp_path / "steps/read.py").write_text(READ_PY)
    m = norm(tmp_path / "workflow.yaml")
    bufs = {norm(tmp_path / rel): Buffer(t, 1, tuple(split_lines(t))) for rel, t in open_files.items()}
    ix = WorkspaceIndex().with_manifests([m])
    ix, _ = ix.with_check(m, check_manifest(WorkspaceSnapshot.of(ix, bufs), m), 1)
    return WorkspaceSnapshot.of(ix, bufs)


def test_hover_on_a_manifest_key():
    from stepsmith.runner.manifest import parse_manifest

    text, line, col = cursor(MANIFEST.replace("python:", "pyt|hon:"))
    md, span = manifest_hover(parse_manifest(text, "workflow.yaml"), line, col)
    assert "Python version" in md and span.line == 3


def test_completion_of_an_import(tmp_path):
    from stepsmith.runner.language.completion import complete

    text, line, col = cursor("import json\nfrom st|\n")
    ws = workspace(tmp_path, {"steps/read.py": text})
    items = {c.label: c for c in complete(ws, norm(tmp_path / "steps/read.py"), line, col)}
    # every allowed module, filtered by the client on filterText; the edit replaces "st"
    assert set(items) == {"datetime", "decimal", "json", "math", "re", "statistics"}
    st = items["statistics"]
    assert (st.range.line, st.range.column, st.range.end_column, st.new_text) == (
        2, 5, 7, "statistics")


def test_definition_from_code_to_the_def(tmp_path):
    text, line, col = cursor(MANIFEST.replace("steps/read.py:read", "steps/re|ad.py:read"))
    ws = workspace(tmp_path, {"workflow.yaml": text})
    (loc,) = definition(ws, norm(tmp_path / "workflow.yaml"), line, col)
    assert loc.path == norm(tmp_path / "steps/read.py")
    assert (loc.span.line, loc.span.column, loc.span.end_column) == (4, 4, 8)


def test_definition_and_references_from_the_def_to_the_steps(tmp_path):
    text, line, col = cursor(READ_PY.replace("def read", "def re|ad"))
    ws = workspace(tmp_path, {"steps/read.py": text})
    path = norm(tmp_path / "steps/read.py")
    (loc,) = definition(ws, path, line, col)
    assert (loc.path, loc.span.line, loc.span.column) == (norm(tmp_path / "workflow.yaml"), 6, 8)
    decl, use = references(ws, path, line, col)
    assert (decl.path, decl.span.line) == (path, 4)
    assert (use.span.line, use.span.column) == (8, 10)  # the `code:` value


def test_code_action_removes_the_refused_import(tmp_path):
    text, line, col = cursor("import json\nimport o|s\n\n\ndef read():\n    return 1\n")
    ws = workspace(tmp_path, {"steps/read.py": text})
    (problem,) = [p for p in validate(text) if p.span.line == line and p.span.column <= col]
    (fix,) = code_actions(ws, norm(tmp_path / "steps/read.py"), [problem])
    assert apply_edits(text, fix.edits) == "import json\n\n\ndef read():\n    return 1\n"


def test_code_action_replaces_a_misspelt_function(tmp_path):
    text, line, col = cursor(MANIFEST.replace("steps/read.py:read", "steps/read.py:raed|"))
    ws = workspace(tmp_path, {"workflow.yaml": text})
    m = norm(tmp_path / "workflow.yaml")
    (problem,) = [p for p in check_manifest(ws, m).problems[Path(m)] if p.code == "SM203"]
    (fix,) = code_actions(ws, m, [problem])
    assert "steps/read.py:read\n" in apply_edits(text, fix.edits)


# ---------------------------------------------------------------- snapshot services (issue 8)


def test_hover_service_on_a_step_def_gives_the_reach_card(tmp_path):
    from stepsmith.runner.language.hover import hover

    text, line, col = cursor(READ_PY.replace("def read", "def re|ad"))
    ws = workspace(tmp_path, {"steps/read.py": text})
    found = hover(ws, norm(tmp_path / "steps/read.py"), line, col)
    assert found is not None and "read" in found.markdown and "reach" in found.markdown.lower()


def test_hover_service_shows_the_rule_of_a_problem_under_the_cursor(tmp_path):
    from stepsmith.runner.language.hover import hover

    text, line, col = cursor("import o|s\n\n\ndef read():\n    return 1\n")
    ws = workspace(tmp_path, {"steps/read.py": text})
    problems = validate(text)
    found = hover(ws, norm(tmp_path / "steps/read.py"), line, col, problems=problems)
    assert found is not None and problems[0].code in found.markdown
    assert found.span == problems[0].span


def test_hover_service_on_a_manifest_code_links_the_def(tmp_path):
    from stepsmith.runner.language.hover import hover

    text, line, col = cursor(MANIFEST.replace("explanation: Read", "explanation: Re|ad"))
    ws = workspace(tmp_path, {"workflow.yaml": text})
    assert hover(ws, norm(tmp_path / "steps/none.txt"), line, col) is None
    found = hover(ws, norm(tmp_path / "workflow.yaml"), line, col)
    assert found is not None and found.span is not None and found.span.line == line


def test_complete_service_offers_code_files_and_modules(tmp_path):
    from stepsmith.runner.language.completion import complete

    text, line, col = cursor(MANIFEST.replace("code: steps/read.py:read", "code: |"))
    ws = workspace(tmp_path, {"workflow.yaml": text})
    labels = [c.label for c in complete(ws, norm(tmp_path / "workflow.yaml"), line, col)]
    # the step's own function first (a whole `code:` value), then the bare file
    assert labels == ["steps/read.py:read", "steps/read.py"]
    text, line, col = cursor("from st|\n")
    ws = workspace(tmp_path, {"steps/read.py": text})
    labels = [c.label for c in complete(ws, norm(tmp_path / "steps/read.py"), line, col)]
    assert "statistics" in labels and "os" not in labels


def test_symbols_service_outlines_and_caps(tmp_path):
    from stepsmith.runner.language.symbols import symbols

    ws = workspace(tmp_path, {})
    names = [s.name for s in symbols(ws, norm(tmp_path / "steps/read.py"))]
    assert names == ["import json", "read"]
    big = "".join(f"def f{i}():\n    return {i}\n" for i in range(50))
    ws = workspace(tmp_path, {"steps/big.py": big})
    assert len(symbols(ws, norm(tmp_path / "steps/big.py"), max_items=7)) == 7
    manifest = symbols(ws, norm(tmp_path / "workflow.yaml"))
    assert any(c.name == "read" for s in manifest for c in s.children)


def test_code_lens_service_counts_fixtures_on_the_buffer(tmp_path):
    from stepsmith.runner.language.lenses import code_lenses

    (tmp_path / "fixtures/read").mkdir(parents=True)
    (tmp_path / "fixtures/read/a.json").write_text("{}")
    text = "\n\n" + READ_PY  # the unsaved buffer moved the def down two lines
    ws = workspace(tmp_path, {"steps/read.py": text})
    lenses = code_lenses(ws, norm(tmp_path / "steps/read.py"))
    assert [(x.step_id, x.line, x.fixtures, x.title) for x in lenses] == [
        ("read", 6, 1, "▶ Run 1 fixture")]
