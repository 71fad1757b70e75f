"""One caller of the workflow check, references parsed once
(no `rsplit(":")` on `code:` values, no `"sources."` / `"steps."` prefix tests) outside the
model, and no module over the size the layout promises."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PY = sorted(p for d in ("runner", "server") for p in (ROOT / d).rglob("*.py"))


def _text(p: Path) -> str:
    return p.read_text(encoding="utf-8")


def test_the_workflow_check_has_one_caller():
    callers = [p.relative_to(ROOT).as_posix() for p in PY
               if re.search(r"\bcheck_workflow\(", _text(p))]
    assert callers == ["runner/manifest/workflow_checks.py", "runner/workspace/workflow_check.py"]


@pytest.mark.parametrize("pattern", [
    r"""code\S*\.r(split|partition)\(\s*["']:["']""",  # "path.py:func" split by hand
    r"""startswith\(\s*["'](sources|steps)\.["']""",  # an input reference told by its prefix
])
def test_references_are_parsed_only_by_the_model(pattern):
    found = [p.relative_to(ROOT).as_posix() for p in PY if re.search(pattern, _text(p))
             and "runner/model/" not in p.as_posix()]
    # the pattern catches the old spelling (a regression test of the rule itself)
    assert re.search(pattern, 'fn = step.code.rsplit(":", 1)[1]; x.startswith("sources.")')
    assert found == []


MAX_MODULE_LINES = 420  # "no module over ~400 lines"
# being split on their own branch; each leaves this list (empty at merge) once it is small
OVERSIZED: set[str] = set()  # none: every module is within the size the layout promises


def _lines(p: Path) -> int:
    text = _text(p)
    return text.count("\n") + (not text.endswith("\n"))


def test_no_module_is_over_the_size_the_layout_promises():
    modules = sorted(p for d in ("runner", "server", "stepsmith")
                     for p in (ROOT / d).rglob("*.py"))
    sizes = {p.relative_to(ROOT).as_posix(): _lines(p) for p in modules}
    assert "runner/manifest/workflow_checks.py" in sizes  # the walk sees the tree
    over = {name: n for name, n in sizes.items() if n > MAX_MODULE_LINES}
    assert set(over) - OVERSIZED == set(), f"modules over {MAX_MODULE_LINES} lines: {over}"
    # an allow-listed module that got small leaves the list, so the list cannot go stale
    assert {name for name in OVERSIZED if sizes.get(name, 0) <= MAX_MODULE_LINES} == set()
